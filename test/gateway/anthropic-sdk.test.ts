/** The official `@anthropic-ai/sdk` against the gateway: a messages upstream (same style) and chat/generative upstreams. */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let client: Anthropic;
beforeAll(async () => {
  g = await startGatewayEnv();
  client = new Anthropic({ apiKey: g.key, baseURL: g.s.url, maxRetries: 0 });
});
afterAll(async () => g?.close());

const TOOLS: Anthropic.Tool[] = [
  { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
];

describe.each([
  ['same style (messages upstream)', 'claude-sonnet-4-6'],
  ['chat upstream', 'gpt-4o-mini'],
  ['generative upstream', 'gemini-2.5-flash'],
])('anthropic SDK, %s', (_name, model) => {
  it('answers a message and names the model that answered', async () => {
    const { data, response } = await client.messages
      .create({ model, max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    expect(data.content).toEqual([expect.objectContaining({ type: 'text', text: 'Echo: hello there' })]);
    expect(data.stop_reason).toBe('end_turn');
    expect(data.usage.output_tokens).toBe(7);
    expect(response.headers.get('x-svc-model')).toBe(model);
  });

  it('streams text with usage in the final message', async () => {
    const stream = client.messages.stream({ model, max_tokens: 256, messages: [{ role: 'user', content: 'stream me' }] });
    let text = '';
    stream.on('text', (t) => (text += t));
    const final = await stream.finalMessage();
    expect(text).toBe('Echo: stream me');
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(7);
  });

  it('returns parallel tool uses, whole and streamed', async () => {
    const res = await client.messages.create({ model, max_tokens: 256, tools: TOOLS, messages: [{ role: 'user', content: 'weather in parallel please' }] });
    expect(res.stop_reason).toBe('tool_use');
    const uses = res.content.filter((b) => b.type === 'tool_use');
    expect(uses.map((b) => b.input)).toEqual([{ city: 'Oslo' }, { city: 'Paris' }]);
    expect(new Set(uses.map((b) => b.id)).size).toBe(2);
    const final = await client.messages.stream({ model, max_tokens: 256, tools: TOOLS, messages: [{ role: 'user', content: 'weather in parallel please' }] }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.filter((b) => b.type === 'tool_use').map((b) => [b.name, b.input])).toEqual([['get_weather', { city: 'Oslo' }], ['get_weather', { city: 'Paris' }]]);
  });

  it('sends tool results back and gets the final answer', async () => {
    const res = await client.messages.create({
      model, max_tokens: 256, tools: TOOLS,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '3C' }] },
      ],
    });
    expect(res.content[0]).toMatchObject({ type: 'text', text: 'Echo: weather?' });
  });

  it('counts tokens: forwarded to a messages upstream, estimated locally otherwise', async () => {
    const { data, response } = await client.messages.countTokens({ model, messages: [{ role: 'user', content: 'how many tokens is this?' }] }).withResponse();
    expect(data.input_tokens).toBeGreaterThan(0);
    if (model.startsWith('claude')) {
      expect(g.messages.calls.at(-1)?.path).toBe('/v1/messages/count_tokens');
      expect(response.headers.get('x-svc-token-count')).toBeNull();
    } else expect(response.headers.get('x-svc-token-count')).toBe('estimated');
  });

  it('re-expresses upstream errors as SDK errors of the right class', async () => {
    const fake = model.startsWith('gpt') ? g.chat : model.startsWith('claude') ? g.messages : g.generative;
    fake.script({ error: 429, retryAfter: 5 });
    const e1 = await client.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(Anthropic.RateLimitError);
    expect((e1 as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after')).toMatch(/^\d+$/);
    fake.script({ error: 400, message: 'Bad thing in the request.' });
    const e2 = await client.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(Anthropic.BadRequestError);
    expect((e2 as Error).message).toContain('Bad thing in the request.');
  });
});

describe('anthropic SDK refusals', () => {
  it('refuses a bad key and an unknown model in the messages error shape', async () => {
    const bad = new Anthropic({ apiKey: 'sk-svc-nope', baseURL: g.s.url, maxRetries: 0 });
    const e1 = await bad.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((e1 as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const e2 = await client.messages.create({ model: 'claude-nothing', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('lists models in the messages shape', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual(expect.arrayContaining(['claude-sonnet-4-6', 'gpt-4o-mini']));
    expect(page.data[0].type).toBe('model');
  });
});
