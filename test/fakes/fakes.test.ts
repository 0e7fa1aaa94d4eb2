/**
 * The fakes speak the real wire formats: each is driven here by its provider's official SDK directly (the chat,
 * messages and generative fakes are also the upstreams of every gateway SDK test; the responses fake is only
 * reached this way until ChatGPT-plan accounts call it).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from './fake-upstream.ts';
import { startFake } from './start-fake.ts';

let responses: FakeUpstream;
let client: OpenAI;
beforeAll(async () => {
  responses = await startFake('responses', ['gpt-5']);
  client = new OpenAI({ apiKey: 'sk-fake', baseURL: `${responses.url}/v1`, maxRetries: 0 });
});
afterAll(async () => responses?.close());

const TOOLS: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } } } }];

describe('the responses fake', () => {
  it('answers a response with text and usage', async () => {
    const r = await client.responses.create({ model: 'gpt-5', input: 'hello' });
    expect(r.output_text).toBe('Echo: hello');
    expect(r.usage?.output_tokens).toBe(7);
  });

  it('streams the full item lifecycle, text and parallel function calls', async () => {
    const text = client.responses.stream({ model: 'gpt-5', input: 'stream me' });
    let deltas = '';
    text.on('response.output_text.delta', (e) => (deltas += e.delta));
    expect((await text.finalResponse()).output_text).toBe('Echo: stream me');
    expect(deltas).toBe('Echo: stream me');
    const calls = await client.responses.stream({ model: 'gpt-5', input: 'weather in parallel', tools: TOOLS }).finalResponse();
    const fc = calls.output.filter((o) => o.type === 'function_call');
    expect(fc.map((c) => c.type === 'function_call' && JSON.parse(c.arguments))).toEqual([{ city: 'Oslo' }, { city: 'Paris' }]);
  });

  it('answers scripted errors in the API error shape', async () => {
    responses.script({ error: 429, retryAfter: 2 });
    await expect(client.responses.create({ model: 'gpt-5', input: 'x' })).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['gpt-5']);
  });
});
