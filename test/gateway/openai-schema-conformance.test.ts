/**
 * Every answer and stream event of `/v1/chat/completions` and `/v1/responses`, on every upstream style, validates
 * against the official OpenAI OpenAPI document (the component schemas of openai/openai-openapi that these shapes
 * use, in test/fixtures/openai-openapi, MIT): strictly typed clients generated from it (Java, Go, .NET) read what
 * the gateway sends without a missing required field or a value of the wrong type.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseParser } from '../../core/sse.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

const { schemas } = JSON.parse(readFileSync(new URL('../fixtures/openai-openapi/schemas.json', import.meta.url), 'utf8')) as { schemas: Record<string, object> };

/** The document mixes OpenAPI 3.0's `nullable: true` into its 3.1 schemas: written as JSON Schema's null type. */
function withoutNullable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNullable);
  if (typeof v !== 'object' || v === null) return v;
  const { nullable, ...rest } = v as Record<string, unknown>;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(rest).map(([k, x]) => [k, withoutNullable(x)]));
  // A nullable enum lists its values only; null is one of them too (the API sends `finish_reason: null`).
  const nullableType = nullable === true || (Array.isArray(out.type) && out.type.includes('null'));
  if (nullableType && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (nullable !== true) return out;
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  return { anyOf: [out, { type: 'null' }] };
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'openai', components: { schemas: withoutNullable(schemas) } });
const validator = (name: string): ValidateFunction => ajv.compile({ $ref: `openai#/components/schemas/${name}` });
const CHAT = validator('CreateChatCompletionResponse');
const CHAT_CHUNK = validator('CreateChatCompletionStreamResponse');
const RESPONSE = validator('Response');
const RESPONSE_EVENT = validator('ResponseStreamEvent');

/** The schema of each stream event type (ResponseStreamEvent is a union; the branch named by `type` says what is wrong). */
const EVENT_SCHEMAS = new Map<string, ValidateFunction>();
for (const [name, schema] of Object.entries(schemas) as Array<[string, { properties?: { type?: { enum?: string[]; const?: string } } }]>) {
  const t = schema.properties?.type;
  for (const type of t?.enum ?? (t?.const ? [t.const] : [])) if (type.startsWith('response.') || type === 'error') EVENT_SCHEMAS.set(type, validator(name));
}

function problems(v: ValidateFunction, value: unknown): string[] {
  if (v(value)) return [];
  // anyOf/oneOf report every branch; the deepest errors say what is wrong.
  return (v.errors ?? []).filter((e) => !['anyOf', 'oneOf', 'if', 'const', 'enum'].includes(e.keyword) || (v.errors ?? []).length === 1)
    .map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`).slice(0, 8);
}

let g: GatewayEnv;
beforeAll(async () => {
  g = await startGatewayEnv();
}, 60_000);
afterAll(async () => g?.close());

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${g.s.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function events(res: Response): Promise<Array<{ event?: string; data: string }>> {
  const parser = new SseParser();
  const out = parser.feed(Buffer.from(await res.arrayBuffer()));
  return [...out, ...parser.end()];
}

const TOOLS_CHAT = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const TOOLS_RESPONSES = [{ type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } } } }];

describe.each([
  ['chat upstream', 'gpt-4o-mini', () => g.chat],
  ['messages upstream', 'claude-sonnet-4-6', () => g.messages],
  ['generative upstream', 'gemini-2.5-flash', () => g.generative],
])('OpenAI schema conformance, %s', (_name, model, fake) => {
  it('response stream cut by the upstream: every event, the error and the failed response included', async () => {
    fake().script({ cutAfter: 2 });
    const evs = (await events(await post('/v1/responses', { model, input: 'a long answer please', stream: true }))).map((e) => JSON.parse(e.data) as { type: string });
    expect(evs.some((e) => e.type === 'error' || e.type === 'response.failed')).toBe(true);
    for (const e of evs) {
      expect(EVENT_SCHEMAS.has(e.type), e.type).toBe(true);
      expect(problems(EVENT_SCHEMAS.get(e.type)!, e), JSON.stringify(e)).toEqual([]);
    }
  });

  for (const [what, extra] of [['text', {}], ['tool call', { tools: TOOLS_CHAT }]] as const) {
    it(`chat completion (${what}): JSON answer and every stream chunk`, async () => {
      const json = await (await post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hello' }], ...extra })).json();
      expect(problems(CHAT, json)).toEqual([]);
      const stream = await post('/v1/chat/completions', { model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hello' }], ...extra });
      const chunks = (await events(stream)).filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as unknown);
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) expect(problems(CHAT_CHUNK, c), JSON.stringify(c)).toEqual([]);
    });
  }

  for (const [what, extra] of [['text', {}], ['tool call', { tools: TOOLS_RESPONSES }]] as const) {
    it(`response (${what}): JSON answer and every stream event`, async () => {
      const json = await (await post('/v1/responses', { model, input: 'hello', ...extra })).json();
      expect(problems(RESPONSE, json)).toEqual([]);
      const stream = await post('/v1/responses', { model, input: 'hello', stream: true, ...extra });
      const evs = (await events(stream)).map((e) => JSON.parse(e.data) as { type: string });
      expect(evs.at(-1)?.type).toBe('response.completed');
      for (const e of evs) {
        expect(EVENT_SCHEMAS.has(e.type), e.type).toBe(true);
        expect(problems(EVENT_SCHEMAS.get(e.type)!, e), JSON.stringify(e)).toEqual([]);
        expect(RESPONSE_EVENT(e), JSON.stringify(e)).toBe(true);
      }
    });
  }
});
