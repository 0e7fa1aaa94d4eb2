/**
 * Fields the OpenAI API's schema requires (nullable ones included), on answers translated from messages and
 * generative upstreams, read through the official openai SDK: strictly typed clients (Java, Go, .NET) fail on a
 * missing one. Chat: `choices[].logprobs`, `message.refusal`. Responses: `instructions`, `metadata`, `temperature`,
 * `top_p` and `tools` repeated from the request, `usage.input_tokens_details.cache_write_tokens`, `logprobs` on output text, and the function's `name` in
 * `response.function_call_arguments.done`.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let client: OpenAI;
beforeAll(async () => {
  g = await startGatewayEnv();
  client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => g?.close());

const TOOL: OpenAI.Responses.FunctionTool = { type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe.each([['messages upstream', 'claude-sonnet-4-6'], ['generative upstream', 'gemini-2.5-flash']])('required fields, %s', (_n, model) => {
  it('chat completion: logprobs and refusal present (null)', async () => {
    const res = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]).toHaveProperty('logprobs', null);
    expect(res.choices[0].message).toHaveProperty('refusal', null);
  });

  it('response: the request repeated, cache writes and text logprobs present', async () => {
    const bare = await client.responses.create({ model, store: false, input: 'hi' });
    expect(bare).toMatchObject({ instructions: null, metadata: null, temperature: null, top_p: null, tools: [] });
    const res = await client.responses.create({
      model, store: false, input: 'hi', instructions: 'Be brief.', temperature: 0.4, top_p: 0.9, metadata: { run: '1' }, tools: [TOOL], tool_choice: 'none',
    });
    expect(res).toMatchObject({ instructions: 'Be brief.', temperature: 0.4, top_p: 0.9, metadata: { run: '1' }, tools: [TOOL], tool_choice: 'none' });
    expect(bare.usage?.input_tokens_details).toHaveProperty('cache_write_tokens', 0);
    const message = bare.output.find((o) => o.type === 'message');
    expect(message?.type === 'message' ? message.content[0] : undefined).toHaveProperty('logprobs', []);
  });

  it('response stream: the arguments done event names the function', async () => {
    const stream = await client.responses.create({ model, store: false, stream: true, tools: [TOOL], input: 'weather?' });
    const done: unknown[] = [];
    for await (const ev of stream) if (ev.type === 'response.function_call_arguments.done') done.push(ev);
    expect(done).toEqual([expect.objectContaining({ name: 'get_weather', arguments: '{"city":"Oslo"}' })]);
  });
});
