/**
 * Playground credentials (docs/panel.md#the-playground-and-key-secrets): minted by the control plane for a key the
 * caller may spend with, accepted by the gateway as that key (metered against it) until they expire or the key is
 * disabled; CORS on /v1 and /v1beta for SVC_PANEL_ORIGIN only; the panel's CSP lets it reach SVC_GATEWAY_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../api/access-fixtures.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

const PANEL = 'https://panel.example';
const GATEWAY = 'https://gateway.example';

describe('playground credentials', () => {
  let g: GatewayEnv;
  beforeAll(async () => {
    g = await startGatewayEnv({ SVC_PANEL_ORIGIN: `${PANEL}/`, SVC_GATEWAY_URL: `${GATEWAY}/` });
  }, 60_000);
  afterAll(async () => g?.close());

  const mint = () => g.s.api('POST', `/api/v1/keys/${g.keyId}/playground-credential`);
  const chat = (key: string) => g.s.app.inject({
    method: 'POST', url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
  });

  it('calls the gateway as its key, metered against it, and says where the gateway is', async () => {
    const m = await mint();
    expect(m.statusCode, m.body).toBe(201);
    expect(m.json()).toMatchObject({ key_id: g.keyId, gateway_url: GATEWAY });
    expect(m.json().key).toMatch(/^sk-svc-pg\./);
    const stored = await g.s.db.query<{ hash: string }>('SELECT hash FROM playground_credentials WHERE key_id = $1', [g.keyId]);
    expect(stored.rows.map((r) => r.hash)).not.toContain(m.json().key);
    const res = await chat(m.json().key);
    expect(res.statusCode, res.body).toBe(200);
    expect((await g.usage(1)).at(-1)?.model).toBe('gpt-4o-mini');
  });

  it('stops working when it expires or its key is disabled', async () => {
    const expiring = (await mint()).json().key as string;
    await g.s.db.query("UPDATE playground_credentials SET expires_at = now() - interval '1 second' WHERE key_id = $1", [g.keyId]);
    expect((await chat(expiring)).statusCode).toBe(401);
    const fresh = (await mint()).json().key as string;
    expect((await g.s.api('PATCH', `/api/v1/keys/${g.keyId}`, { disabled: true })).statusCode).toBe(200);
    expect((await chat(fresh)).statusCode).toBe(401);
    expect((await mint()).statusCode).toBe(409);
    expect((await g.s.api('PATCH', `/api/v1/keys/${g.keyId}`, { disabled: false })).statusCode).toBe(200);
    expect((await chat((await mint()).json().key)).statusCode).toBe(200);
  });

  it('is minted only for a key the caller may spend with', async () => {
    const bob = await makeUser(g.s, 'bob', { gw: 'member' });
    const own = await g.s.api('POST', '/api/v1/keys', { name: 'bobs', own: true }, { ...bob.headers, 'x-svc-team': 'gw' });
    expect(own.statusCode, own.body).toBe(201);
    // A superuser sees bob's own key but does not spend with it.
    expect((await g.s.api('POST', `/api/v1/keys/${own.json().id}/playground-credential`)).statusCode).toBe(403);
    expect((await g.s.api('POST', `/api/v1/keys/${own.json().id}/playground-credential`, undefined, bob.headers)).statusCode).toBe(201);
    const viewer = await makeUser(g.s, 'vic', { gw: 'viewer' });
    expect((await g.s.api('POST', `/api/v1/keys/${g.keyId}/playground-credential`, undefined, viewer.headers)).statusCode).toBe(403);
  });

  it('answers CORS on /v1 and /v1beta for the panel\'s origin only', async () => {
    for (const url of ['/v1/chat/completions', '/v1beta/models/gemini-2.5-flash:streamGenerateContent']) {
      const pre = await g.s.app.inject({ method: 'OPTIONS', url, headers: { origin: PANEL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-goog-api-key, content-type' } });
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe(PANEL);
      expect(String(pre.headers['access-control-allow-headers'])).toContain('x-goog-api-key');
      const other = await g.s.app.inject({ method: 'OPTIONS', url, headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' } });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    }
    const res = await g.s.app.inject({ method: 'GET', url: '/v1/models', headers: { origin: PANEL, authorization: `Bearer ${g.key}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(PANEL);
    expect(String(res.headers['access-control-expose-headers'])).toContain('X-Svc-Warning');
    expect(res.headers.vary).toContain('origin');
  });

  it('lets the panel connect to the gateway\'s address', async () => {
    const page = await g.s.app.inject({ method: 'GET', url: '/ai/playground', headers: { accept: 'text/html' } });
    expect(page.headers['content-security-policy']).toContain(`connect-src 'self' ${GATEWAY};`);
  });
});
