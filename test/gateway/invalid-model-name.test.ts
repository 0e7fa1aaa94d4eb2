/**
 * A model name with a control character or a lone surrogate is refused with 400 `invalid_model` in the caller's
 * style before any limit or usage work (issue 11 point 4): one NUL in a model name used to make the usage writer
 * retry its insert forever with every later record behind it. The refusal is recorded (without the name) and the
 * records of the calls after it are written.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
beforeAll(async () => {
  g = await startGatewayEnv();
}, 60_000);
afterAll(async () => g?.close());

const post = (path: string, body: string, headers: Record<string, string>) =>
  fetch(`${g.s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('a model name no model can have', () => {
  it('is refused by the openai and anthropic SDKs with 400 invalid_model', async () => {
    const openai = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const e1 = await openai.chat.completions.create({ model: 'ok-model\u0000', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(OpenAI.APIError);
    expect((e1 as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((e1 as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_model');
    const anthropic = new Anthropic({ apiKey: g.key, baseURL: g.s.url, maxRetries: 0 });
    const e2 = await anthropic.messages.create({ model: 'claude-haiku-4-5\u007f', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(Anthropic.APIError);
    expect((e2 as InstanceType<typeof Anthropic.APIError>).status).toBe(400);
    expect((e2 as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_model' } });
  });

  it.each([
    ['chat, a NUL', '/v1/chat/completions', '{"model":"ok-model\\u0000","messages":[{"role":"user","content":"hi"}]}'],
    ['chat, a tab', '/v1/chat/completions', '{"model":"gpt-4o\\t","messages":[{"role":"user","content":"hi"}]}'],
    ['responses, a lone high surrogate', '/v1/responses', '{"model":"gpt-4o\\ud800","input":"hi"}'],
    ['messages, a lone low surrogate', '/v1/messages', '{"model":"\\udc00claude","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'],
    ['messages count_tokens, an escape', '/v1/messages/count_tokens', '{"model":"claude\\u001b[0m","messages":[{"role":"user","content":"hi"}]}'],
  ])('%s: 400 invalid_model in the caller\'s style', async (_name, path, body) => {
    const res = await post(path, body, { authorization: `Bearer ${g.key}` });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code?: string } };
    expect(json.error.code).toBe('invalid_model');
  });

  it('generative: a NUL in the path is refused in the generative shape', async () => {
    const res = await post('/v1beta/models/gemini-2.5-flash%00:generateContent', '{"contents":[{"parts":[{"text":"hi"}]}]}', { 'x-goog-api-key': g.key });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { status: string; details: { reason: string }[] } };
    expect(json.error.status).toBe('INVALID_ARGUMENT');
    expect(json.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'invalid_model' })]));
  });

  it('records the refusals without the name, and the records of later calls are written', async () => {
    const openai = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const ok = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'after' }] });
    expect(ok.choices[0].message.content).toBe('Echo: after');
    const rows = await g.usage(9);
    expect(rows.filter((r) => r.error_code === 'invalid_model')).toHaveLength(8);
    expect(rows.filter((r) => r.error_code === 'invalid_model').every((r) => r.model === '' && r.status === 400)).toBe(true);
    expect(rows.at(-1)).toMatchObject({ status: 200, model: 'gpt-4o-mini' });
  });
});
