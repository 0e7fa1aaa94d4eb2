/**
 * The official `openai` SDK's responses API (`client.responses.create`, as Codex CLI speaks it) against the gateway's
 * `POST /v1/responses`: every upstream is another style here (chat, messages, generative), so each call is
 * translated both ways, whole and streamed, with function tools and tool results; refusals and upstream errors
 * come back in the responses error shape, and a broken upstream stream ends in an error, never a clean truncation.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv, type UsageRow } from './gateway-env.ts';

let g: GatewayEnv;
let client: OpenAI;
beforeAll(async () => {
  g = await startGatewayEnv();
  client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
});
afterAll(async () => g?.close());

type ApiError = InstanceType<typeof OpenAI.APIError>;

const TOOLS: OpenAI.Responses.Tool[] = [
  { type: 'function', name: 'get_weather', description: 'Weather of a city', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
];

async function collect(stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
  const types: string[] = [];
  const seq: number[] = [];
  let text = '';
  const calls: { call_id: string; name: string; args: unknown }[] = [];
  let final: OpenAI.Responses.Response | undefined;
  for await (const ev of stream) {
    types.push(ev.type);
    seq.push(ev.sequence_number);
    if (ev.type === 'response.output_text.delta') text += ev.delta;
    if (ev.type === 'response.output_item.done' && ev.item.type === 'function_call') calls.push({ call_id: ev.item.call_id, name: ev.item.name, args: JSON.parse(ev.item.arguments) });
    if (ev.type === 'response.completed' || ev.type === 'response.incomplete' || ev.type === 'response.failed') final = ev.response;
  }
  return { types, seq, text, calls, final };
}

/** The key's usage rows once `done` holds for them (the writer batches). */
async function usageWhen(done: (rows: UsageRow[]) => boolean): Promise<UsageRow[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const rows = await g.usage(1);
    if (done(rows) || Date.now() > deadline) return rows;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const fakeOf = (model: string) => (model.startsWith('gpt') ? g.chat : model.startsWith('claude') ? g.messages : g.generative);

describe.each([
  ['chat upstream', 'gpt-4o-mini'],
  ['messages upstream', 'claude-sonnet-4-6'],
  ['generative upstream', 'gemini-2.5-flash'],
])('openai SDK responses, %s', (_name, model) => {
  it('answers a response with usage and names the model that answered', async () => {
    const { data, response } = await client.responses.create({ model, instructions: 'Be brief.', input: 'hello there' }).withResponse();
    expect(data.object).toBe('response');
    expect(data.status).toBe('completed');
    expect(data.id).toMatch(/^resp_/);
    expect(data.output_text).toBe('Echo: hello there');
    expect(data.usage?.output_tokens).toBe(7);
    expect(data.usage?.input_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-svc-model')).toBe(model);
    expect(response.headers.get('x-svc-warning')).toBeNull();
  });

  it('streams the whole lifecycle, in order, ending in response.completed with the usage', async () => {
    const r = await collect(await client.responses.create({ model, stream: true, input: [{ role: 'user', content: 'stream me' }] }));
    expect(r.text).toBe('Echo: stream me');
    expect(r.types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(r.types).toEqual(expect.arrayContaining(['response.output_item.added', 'response.content_part.added', 'response.output_text.done', 'response.output_item.done']));
    expect(r.types.at(-1)).toBe('response.completed');
    expect(r.seq).toEqual(r.seq.map((_, i) => i));
    expect(r.final?.output_text ?? r.final?.output.flatMap((o) => (o.type === 'message' ? o.content : [])).map((c) => (c.type === 'output_text' ? c.text : '')).join('')).toBe('Echo: stream me');
    expect(r.final?.usage?.output_tokens).toBe(7);
  });

  it('returns parallel function calls, whole and streamed, with distinct call ids', async () => {
    const res = await client.responses.create({ model, tools: TOOLS, input: 'weather in parallel please' });
    const calls = res.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call');
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['get_weather', { city: 'Oslo' }], ['get_weather', { city: 'Paris' }]]);
    expect(new Set(calls.map((c) => c.call_id)).size).toBe(2);
    const streamed = await collect(await client.responses.create({ model, stream: true, tools: TOOLS, input: 'weather in parallel please' }));
    expect(streamed.calls.map((c) => [c.name, c.args])).toEqual([['get_weather', { city: 'Oslo' }], ['get_weather', { city: 'Paris' }]]);
    expect(streamed.types).toContain('response.function_call_arguments.done');
    expect(streamed.types.at(-1)).toBe('response.completed');
  });

  it('sends a function call and its output back and gets the final answer', async () => {
    const first = await client.responses.create({ model, tools: TOOLS, input: 'weather?' });
    const call = first.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call');
    expect(call?.name).toBe('get_weather');
    const input: OpenAI.Responses.ResponseInput = [
      { role: 'user', content: 'weather?' },
      { type: 'function_call', call_id: call?.call_id ?? '', name: 'get_weather', arguments: call?.arguments ?? '{}' },
      { type: 'function_call_output', call_id: call?.call_id ?? '', output: '3C' },
    ];
    const res = await client.responses.create({ model, tools: TOOLS, input });
    expect(res.output_text).toBe('Echo: weather?');
    const streamed = await collect(await client.responses.create({ model, stream: true, tools: TOOLS, input }));
    expect(streamed.text).toBe('Echo: weather?');
    // The tool turn reached the upstream as its own style's tool result.
    expect(JSON.stringify(fakeOf(model).calls.at(-1)?.body)).toContain('3C');
  });

  it('re-expresses an upstream 429 with its Retry-After and an upstream 500 as SDK errors', async () => {
    const fake = fakeOf(model);
    fake.script({ error: 429, retryAfter: 7 });
    const err = await client.responses.create({ model, input: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as ApiError).headers?.get('retry-after')).toMatch(/^\d+$/);
    fake.script({ error: 500 });
    const err2 = await client.responses.create({ model, input: 'x' }).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err2 as ApiError).type).toBe('server_error');
  });

  it.each([
    ['cut short', { cutAfter: 2 }],
    ['malformed', { malformed: true }],
  ] as const)('ends a stream the upstream %s with an error event and response.failed', async (_kind, script) => {
    fakeOf(model).script(script);
    const res = await fetch(`${g.s.url}/v1/responses`, {
      method: 'POST', headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, stream: true, input: 'a long story' }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(events.slice(-2)).toEqual(['error', 'response.failed']);
    expect(events).not.toContain('response.completed');
    fakeOf(model).script({ cutAfter: 2 });
    const run = async () => {
      for await (const ev of await client.responses.create({ model, stream: true, input: 'a long story' })) void ev;
    };
    await expect(run()).rejects.toThrow(/ended before the answer was finished|that is not JSON/);
  });
});

describe('openai SDK responses refusals', () => {
  it('refuses a bad key, a model not allowed, an unknown model and a body without a model in the responses error shape', async () => {
    const bad = new OpenAI({ apiKey: 'sk-svc-not-a-key', baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const e1 = await bad.responses.create({ model: 'gpt-4o', input: 'x' }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((e1 as ApiError).code).toBe('invalid_api_key');

    const k = await g.s.api('POST', '/api/v1/keys', { name: 'claude-only', models: ['claude-*'] }, { 'x-svc-team': 'gw' });
    expect(k.statusCode, k.body).toBe(201);
    const narrow = new OpenAI({ apiKey: k.json().key as string, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const e2 = await narrow.responses.create({ model: 'gpt-4o', input: 'x' }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((e2 as ApiError).code).toBe('model_not_allowed');

    const e3 = await client.responses.create({ model: 'no-such-model', input: 'x' }).catch((e: unknown) => e);
    expect(e3).toBeInstanceOf(OpenAI.NotFoundError);
    expect((e3 as ApiError).code).toBe('model_not_found');

    const e4 = await client.responses.create({ model: '', input: 'x' }).catch((e: unknown) => e);
    expect(e4).toBeInstanceOf(OpenAI.BadRequestError);
    expect((e4 as ApiError).code).toBe('model_required');
  });

  it('refuses a body it cannot read with 400 invalid_request naming the field', async () => {
    const res = await fetch(`${g.s.url}/v1/responses`, {
      method: 'POST', headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude-sonnet-4-6', input: 42 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: expect.stringContaining('input'), type: 'invalid_request_error', param: 'input', code: 'invalid_request' } });
    const notJson = await fetch(`${g.s.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' }, body: '{"model":' });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
  });

  it('refuses an unknown previous_response_id, and conversation and background, which need state the gateway does not keep', async () => {
    const e1 = await client.responses.create({ model: 'gpt-4o-mini', input: 'and then?', previous_response_id: 'resp_abc' }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(OpenAI.BadRequestError);
    expect((e1 as ApiError).code).toBe('response_reference_unresolved');
    expect((e1 as ApiError).param).toBe('previous_response_id');
    expect((e1 as ApiError).message).toContain('resp_abc');
    const e2 = await client.responses.create({ model: 'gpt-4o-mini', input: 'x', conversation: 'conv_1' }).catch((e: unknown) => e);
    expect((e2 as ApiError).param).toBe('conversation');
    const e3 = await client.responses.create({ model: 'gpt-4o-mini', input: 'x', background: true }).catch((e: unknown) => e);
    expect((e3 as ApiError).param).toBe('background');
    const refused = (rows: UsageRow[]) => rows.filter((r) => ['response_state_unsupported', 'response_reference_unresolved'].includes(r.error_code ?? '') && r.client_style === 'responses' && r.status === 400);
    expect(refused(await usageWhen((rows) => refused(rows).length >= 3))).toHaveLength(3);
  });

  it('stores store: true answers (the key keeps responses by default), with no warning', async () => {
    const { data, response } = await client.responses.create({ model: 'claude-sonnet-4-6', input: 'keep this', store: true }).withResponse();
    expect(data.output_text).toBe('Echo: keep this');
    expect(response.headers.get('x-svc-warning') ?? '').not.toContain('store');
    expect((await client.responses.retrieve(data.id)).output_text).toBe('Echo: keep this');
  });

  it('drops built-in tools with a warning, and refuses a tool_choice that forces one', async () => {
    const { data, response } = await client.responses.create({ model: 'gpt-4o-mini', input: 'hello', tools: [{ type: 'web_search' }] }).withResponse();
    expect(data.output_text).toBe('Echo: hello');
    expect(response.headers.get('x-svc-warning')).toContain('built-in tool web_search was dropped');
    expect(JSON.stringify(g.chat.calls.at(-1)?.body)).not.toContain('web_search');
    const e = await client.responses.create({ model: 'gpt-4o-mini', input: 'search', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }], tool_choice: { type: 'file_search' } }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(OpenAI.BadRequestError);
    expect((e as ApiError).param).toBe('tool_choice');
  });

  it('answers an unknown response and other paths under /v1/responses with 404 in the responses shape', async () => {
    const e = await client.responses.retrieve('resp_abc').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(OpenAI.NotFoundError);
    expect((e as ApiError).code).toBe('not_found');
    const c = await client.responses.cancel('resp_abc').catch((err: unknown) => err);
    expect(c).toBeInstanceOf(OpenAI.NotFoundError);
    expect((c as ApiError).code).toBe('route_not_found');
  });

  it('lists models in the chat shape for the same client, and records the calls as responses-style', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(['gpt-4o-mini', 'claude-sonnet-4-6', 'gemini-2.5-flash']));
    const served = (rows: UsageRow[]) => new Set(rows.filter((r) => r.client_style === 'responses' && r.status === 200).map((r) => r.upstream_style));
    expect(served(await usageWhen((rows) => served(rows).size >= 3))).toEqual(new Set(['chat', 'messages', 'generative']));
    const ok = (await g.usage(1)).filter((r) => r.client_style === 'responses' && r.status === 200);
    expect(ok.every((r) => r.usage_source === 'reported' || r.usage_source === 'estimated')).toBe(true);
  });
});
