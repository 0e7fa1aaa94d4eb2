/** The official `openai` SDK against the gateway: a chat upstream (same style) and messages/generative upstreams. */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let client: OpenAI;
beforeAll(async () => {
  g = await startGatewayEnv();
  client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
});
afterAll(async () => g?.close());

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];

async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = '';
  const calls = new Map<number, { id?: string; name?: string; args: string }>();
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  let emptyChoiceChunks = 0;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    if (chunk.choices.length === 0) emptyChoiceChunks++;
    for (const c of chunk.choices) {
      text += c.delta.content ?? '';
      for (const tc of c.delta.tool_calls ?? []) {
        const slot = calls.get(tc.index) ?? { args: '' };
        if (tc.id) slot.id = tc.id;
        if (tc.function?.name) slot.name = tc.function.name;
        slot.args += tc.function?.arguments ?? '';
        calls.set(tc.index, slot);
      }
      if (c.finish_reason) finish = c.finish_reason;
    }
  }
  return { text, calls: [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v), finish, usage, emptyChoiceChunks };
}

describe.each([
  ['same style (chat upstream)', 'gpt-4o-mini'],
  ['messages upstream', 'claude-sonnet-4-6'],
  ['generative upstream', 'gemini-2.5-flash'],
])('openai SDK, %s', (_name, model) => {
  it('answers a chat completion and names the model that answered', async () => {
    const { data, response } = await client.chat.completions
      .create({ model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello there' }] })
      .withResponse();
    expect(data.choices[0].message.content).toBe('Echo: hello there');
    expect(data.choices[0].finish_reason).toBe('stop');
    expect(data.usage?.completion_tokens).toBe(7);
    expect(response.headers.get('x-svc-model')).toBe(model);
  });

  it('streams text, with the usage chunk only when asked for', async () => {
    const plain = await collect(await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'stream me' }] }));
    expect(plain).toMatchObject({ text: 'Echo: stream me', finish: 'stop', emptyChoiceChunks: 0 });
    expect(plain.usage).toBeUndefined();
    const withUsage = await collect(await client.chat.completions.create({
      model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'count me' }],
    }));
    expect(withUsage.text).toBe('Echo: count me');
    expect(withUsage.usage?.completion_tokens).toBe(7);
    expect(withUsage.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('returns parallel tool calls, whole and streamed, with distinct ids', async () => {
    const res = await client.chat.completions.create({ model, tools: TOOLS, messages: [{ role: 'user', content: 'weather in parallel please' }] });
    const calls = res.choices[0].message.tool_calls ?? [];
    expect(res.choices[0].finish_reason).toBe('tool_calls');
    expect(calls.map((c) => c.type === 'function' && JSON.parse(c.function.arguments))).toEqual([{ city: 'Oslo' }, { city: 'Paris' }]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    const streamed = await collect(await client.chat.completions.create({ model, stream: true, tools: TOOLS, messages: [{ role: 'user', content: 'weather in parallel please' }] }));
    expect(streamed.finish).toBe('tool_calls');
    expect(streamed.calls.map((c) => [c.name, JSON.parse(c.args)])).toEqual([['get_weather', { city: 'Oslo' }], ['get_weather', { city: 'Paris' }]]);
  });

  it('sends tool results back and gets the final answer', async () => {
    const res = await client.chat.completions.create({
      model, tools: TOOLS,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '3C' },
      ],
    });
    expect(res.choices[0].message.content).toBe('Echo: weather?');
  });

  it('re-expresses an upstream 429 with its Retry-After and an upstream 500 as SDK errors', async () => {
    const fake = model.startsWith('gpt') ? g.chat : model.startsWith('claude') ? g.messages : g.generative;
    fake.script({ error: 429, retryAfter: 7 });
    const err = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toMatch(/^\d+$/);
    fake.script({ error: 500 });
    const err2 = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(OpenAI.InternalServerError);
  });
});

describe('openai SDK refusals', () => {
  it('refuses a bad key, an unknown model and a body without a model in the chat error shape', async () => {
    const bad = new OpenAI({ apiKey: 'sk-svc-not-a-key', baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const e1 = await bad.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((e1 as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
    const e2 = await client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(OpenAI.NotFoundError);
    expect((e2 as InstanceType<typeof OpenAI.APIError>).code).toBe('model_not_found');
    const e3 = await client.chat.completions.create({ model: '', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(e3).toBeInstanceOf(OpenAI.BadRequestError);
    expect((e3 as InstanceType<typeof OpenAI.APIError>).code).toBe('model_required');
  });

  it('lists the models of the key, aliases included', async () => {
    const put = await g.s.api('PUT', '/api/v1/aliases/fast', { models: ['gpt-4o-mini', 'claude-haiku-4-5'] });
    expect(put.statusCode, put.body).toBeLessThan(300);
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(['fast', 'gpt-4o-mini', 'claude-sonnet-4-6', 'gemini-2.5-flash']));
  });
});
