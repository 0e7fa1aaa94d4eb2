/**
 * Routing behaviour of the gateway: alias fallback (429/404 → next model, X-Svc-Model), rotation across
 * accounts with failing ones skipped, refusals in the caller's style (401, 403, 404, 400, 413, 502, 504), and the
 * batched usage records with tokens and cost.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let a: FakeUpstream;
let b: FakeUpstream;
let proxy: Server;
let tunnels = 0;
beforeAll(async () => {
  // An outbound HTTP proxy, as an account's proxy_url: absolute-form requests for http targets, CONNECT tunnels
  // for https ones.
  proxy = createServer((req, res) => {
    tunnels++;
    const target = new URL(req.url ?? '');
    const out = httpRequest({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  proxy.on('connect', (req, socket, head) => {
    tunnels++;
    const [host, port] = (req.url ?? '').split(':');
    const up = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  g = await startGatewayEnv({ SVC_UPSTREAM_TIMEOUT_MS: '1000', SVC_BODY_LIMIT_BYTES: '65536' });
  [a, b] = await Promise.all([startFake('chat'), startFake('chat')]);
  await g.addAccount({ name: 'rr-a', provider: 'openai-compatible', api_key: 'sk-rr-a-0123456789abcdef', base_url: `${a.url}/v1`, models: ['rr-model'] });
  await g.addAccount({ name: 'rr-b', provider: 'openai-compatible', api_key: 'sk-rr-b-0123456789abcdef', base_url: `${b.url}/v1`, models: ['rr-model'] });
  await g.addAccount({
    name: 'proxied', provider: 'openai-compatible', api_key: 'sk-proxied-0123456789abcdef', base_url: `${b.url}/v1`,
    proxy_url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, models: ['proxied-model'],
  });
  await g.addAccount({ name: 'dead', provider: 'openai-compatible', api_key: 'sk-dead-0123456789abcdef', base_url: 'http://127.0.0.1:9/v1', models: ['dead-model'] });
  for (const [name, models] of [['smart', ['gpt-4o', 'claude-haiku-4-5']], ['mini', ['gpt-4o-mini']]] as const) {
    const res = await g.s.api('PUT', `/api/v1/aliases/${name}`, { models });
    expect(res.statusCode, res.body).toBeLessThan(300);
  }
});
afterAll(async () => {
  await g?.close();
  await Promise.all([a?.close(), b?.close()]);
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
});

const chat = (body: unknown, key = g.key, extra: Record<string, string> = {}) =>
  fetch(`${g.s.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const hi = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] });

describe('aliases', () => {
  it('falls back to the next model on 429, before anything reached the client, and says who answered', async () => {
    // Retry-After 0: the account is not left cooling for the next tests (a cooling account is skipped while the
    // alias has another model).
    g.chat.script({ error: 429, retryAfter: 0 });
    const res = await chat(hi('smart'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-model')).toBe('claude-haiku-4-5');
    expect((await res.json()).choices[0].message.content).toBe('Echo: hi');
    expect(g.chat.calls.at(-1)?.body).toMatchObject({ model: 'gpt-4o' });
    expect(g.messages.calls.at(-1)?.body).toMatchObject({ model: 'claude-haiku-4-5' });
  });

  it('falls back on a 404 and on 5xx, and answers the last error when every model fails', async () => {
    g.chat.script({ error: 404 });
    expect((await chat(hi('smart'))).headers.get('x-svc-model')).toBe('claude-haiku-4-5');
    g.chat.script({ error: 503 });
    g.messages.script({ error: 529 });
    const res = await chat(hi('smart'));
    expect(res.status).toBe(503);
    expect((await res.json()).error.type).toBe('server_error');
  });

  it('rewrites only the model of a same-style body', async () => {
    const raw = '{"messages":[{"role":"user","content":"keep  me"}],  "model":"mini","temperature":1.0,"x_custom":{"a":1}}';
    const res = await chat(raw);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-model')).toBe('gpt-4o-mini');
    expect(g.chat.calls.at(-1)?.body).toEqual({ messages: [{ role: 'user', content: 'keep  me' }], model: 'gpt-4o-mini', temperature: 1, x_custom: { a: 1 } });
    expect(g.chat.calls.at(-1)?.headers.authorization).toBe('Bearer sk-fake-openai-0123456789abcdef');
  });
});

describe('accounts', () => {
  it('take turns, and a failing one is skipped for a while', async () => {
    a.reset();
    b.reset();
    // Distinct first messages: four new conversations (the same opening would be one conversation, kept on one account).
    for (let i = 0; i < 4; i++) expect((await chat({ model: 'rr-model', messages: [{ role: 'user', content: `hi ${i}` }] })).status).toBe(200);
    expect([a.calls.length, b.calls.length]).toEqual([2, 2]);
    a.reset();
    b.reset();
    a.script({ error: 502 });
    // Whether a comes first or second, its failure moves that call to b and a then sits out.
    for (let i = 0; i < 4; i++) expect((await chat({ model: 'rr-model', messages: [{ role: 'user', content: `again ${i}` }] })).status).toBe(200);
    expect([a.calls.length, b.calls.length]).toEqual([1, 4]);
  });
});

describe('outbound proxies', () => {
  it("send an account's calls through its proxy_url", async () => {
    const res = await chat(hi('proxied-model'));
    expect(res.status).toBe(200);
    expect((await res.json()).choices[0].message.content).toBe('Echo: hi');
    expect(tunnels).toBeGreaterThanOrEqual(1);
    expect(b.calls.at(-1)?.headers.authorization).toBe('Bearer sk-proxied-0123456789abcdef');
  });
});

describe('refusals in the chat shape', () => {
  const expectChatError = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body).toMatchObject({ error: { code, type: expect.any(String), message: expect.stringMatching(/\w/) } });
  };

  it('answers 401, 403, 404, 400 and 413', async () => {
    await expectChatError(await chat(hi('gpt-4o'), 'sk-svc-unknown'), 401, 'invalid_api_key');
    await expectChatError(await fetch(`${g.s.url}/v1/chat/completions`, { method: 'POST', body: '{}' }), 401, 'invalid_api_key');
    const limited = await g.s.api('POST', '/api/v1/keys', { name: 'limited', models: ['claude-*'] }, { 'x-svc-team': 'gw' });
    await expectChatError(await chat(hi('gpt-4o'), limited.json().key), 403, 'model_not_allowed');
    await expectChatError(await chat(hi('llama-nowhere')), 404, 'model_not_found');
    await expectChatError(await chat('{"model": "gpt-4o", '), 400, 'invalid_json');
    await expectChatError(await chat('[1,2]'), 400, 'invalid_json');
    await expectChatError(await chat({ messages: [] }), 400, 'model_required');
    await expectChatError(await chat({ model: 'gpt-4o', messages: 'x'.repeat(70_000) }), 413, 'payload_too_large');
    await expectChatError(await chat({ model: 'claude-haiku-4-5', messages: 'not a list' }), 400, 'invalid_request');
    const nf = await fetch(`${g.s.url}/v1/nothing`, { headers: { authorization: `Bearer ${g.key}` } });
    await expectChatError(nf, 404, 'route_not_found');
  });

  it('answers 502 when the upstream cannot be reached or answers nonsense, and 504 when it does not answer in time', async () => {
    await expectChatError(await chat(hi('dead-model')), 502, 'upstream_unreachable');
    g.messages.script({ error: 200, body: { not: 'a message' } });
    await expectChatError(await chat(hi('claude-haiku-4-5')), 502, 'upstream_bad_response');
    g.chat.script({ hang: true });
    const started = Date.now();
    await expectChatError(await chat(hi('gpt-4o-mini')), 504, 'upstream_timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('refuses images that are neither an http(s) URL nor base64 before calling a translated upstream', async () => {
    const img = (url: string) => ({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url } }] }] });
    const before = g.messages.calls.length;
    await expectChatError(await chat(img('file:///etc/passwd')), 400, 'invalid_request');
    await expectChatError(await chat(img('just-a-name.png')), 400, 'invalid_request');
    expect(g.messages.calls.length).toBe(before);
    expect((await chat(img('data:image/png;base64,iVBORw0KGgo='))).status).toBe(200);
    expect((await chat(img('https://example.com/cat.png'))).status).toBe(200);
    expect(g.messages.calls.at(-1)?.body).toMatchObject({ messages: [{ content: [{ type: 'text' }, { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } }] }] });
  });

  it('names dropped parameters in X-Svc-Warning', async () => {
    const res = await chat({ model: 'claude-haiku-4-5', seed: 7, presence_penalty: 0.5, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    const warning = res.headers.get('x-svc-warning') ?? '';
    expect(warning).toContain('seed');
    expect(warning).toContain('presence_penalty');
    expect(g.messages.calls.at(-1)?.body).not.toHaveProperty('seed');
  });

  it('answers messages-style and generative-style refusals in their own shapes', async () => {
    const m = await fetch(`${g.s.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'nope', 'anthropic-version': '2023-06-01' }, body: '{}' });
    expect(m.status).toBe(401);
    expect(await m.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const gen = await fetch(`${g.s.url}/v1beta/models/gemini-2.5-flash:generateContent?key=${g.key}`, { method: 'POST', body: 'nope' });
    expect(gen.status).toBe(400);
    expect(await gen.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });
});

describe('usage records', () => {
  it('are written in batches with tokens, styles, timings and cost', async () => {
    const k = await g.s.api('POST', '/api/v1/keys', { name: 'metered' }, { 'x-svc-team': 'gw' });
    const calls = [hi('gpt-4o-mini'), hi('claude-haiku-4-5'), hi('gemini-2.5-flash')];
    await Promise.all(calls.map((c) => chat(c, k.json().key).then((r) => r.text())));
    const rows = await g.usage(3, k.json().id);
    const byModel = Object.fromEntries(rows.map((r) => [r.model, r]));
    expect(byModel['gpt-4o-mini']).toMatchObject({ client_style: 'chat', upstream_style: 'chat', provider: 'openai', status: 200, input_tokens: 13, output_tokens: 7, usage_source: 'reported', stream: false });
    expect(byModel['gpt-4o-mini'].cost_usd).toBeCloseTo((13 * 0.15 + 7 * 0.6) / 1e6, 12);
    expect(byModel['claude-haiku-4-5']).toMatchObject({ upstream_style: 'messages', provider: 'anthropic', input_tokens: 13, output_tokens: 7 });
    expect(byModel['claude-haiku-4-5'].cost_usd).toBeCloseTo((13 * 1 + 7 * 5) / 1e6, 12);
    expect(byModel['gemini-2.5-flash']).toMatchObject({ upstream_style: 'generative', provider: 'gemini', input_tokens: 13, output_tokens: 7 });
    for (const r of rows) {
      expect(r.latency_ms).toBeGreaterThanOrEqual(0);
      expect(r.ttfb_ms).not.toBeNull();
    }
    const refused = (await g.usage(0)).filter((r) => r.status >= 400);
    expect(refused.map((r) => r.error_code)).toEqual(expect.arrayContaining(['model_not_found', 'model_required', 'upstream_unreachable', 'upstream_timeout']));
    expect((await g.usage(0)).find((r) => r.alias === 'smart' && r.status === 200)).toMatchObject({ model: 'smart', served_model: 'claude-haiku-4-5' });
  });
});
