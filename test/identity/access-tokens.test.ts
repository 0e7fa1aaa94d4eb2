/**
 * Access tokens: the device grant approved with a password, the JWT's shape and JWKS, acceptance on /api/v1 and
 * /mcp like an API token of the same scope, expiry after 15 minutes on the server's clock, refresh token rotation
 * with reuse revoking the session, sign-out, and OAuth's error shape for bad input on /oauth/token.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { deriveKey, open } from '../../core/secret-box.ts';
import { SigningKeyRing } from '../../control-plane/identity/signing-key-ring.ts';
import { SECRET_KEY, startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, expectError, PASSWORD, setRole } from '../api/identity-fixtures.ts';
import { DEVICE_GRANT, oauthPost, signIn } from './access-token-fixtures.ts';

const clock = new ManualClock();
let s: TestServer;
let team: string;
let alice: string;

beforeAll(async () => {
  s = await startTestServer({ clock });
  alice = await createUser(s, 'alice');
  await createUser(s, 'bob');
  team = await createTeam(s, 'payments');
  await setRole(s, team, 'alice', 'member');
});
afterAll(async () => s?.close());

const me = (token: string) => s.api('GET', '/api/v1/users/me', undefined, bearer(token));

/** A token signed with this service's own current key, with whatever header and claims a test needs. */
async function forge(header: Record<string, unknown>, claims: Record<string, unknown>): Promise<string> {
  const row = (await s.db.query<{ kid: string; private_sealed: string }>('SELECT kid, private_sealed FROM signing_keys ORDER BY generation DESC LIMIT 1')).rows[0];
  const key = await importJWK(JSON.parse(open(deriveKey(SECRET_KEY), row.private_sealed)) as JWK, 'EdDSA');
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: row.kid, ...header }).sign(key);
}

describe('the device grant', () => {
  it('answers authorization_pending, then slow_down when polled too fast, then tokens once approved, once', async () => {
    const start = await oauthPost(s, '/oauth/device_authorization', { client_id: 'svc-cli', scope: 'read' });
    expect(start.statusCode).toBe(200);
    const d = start.json();
    expect(d).toMatchObject({ user_code: expect.stringMatching(/^[B-Z]{4}-[B-Z]{4}$/), interval: 5, expires_in: 600 });
    expect(d.verification_uri_complete).toBe(`${d.verification_uri}?code=${d.user_code}`);
    expect(start.headers['cache-control']).toBe('no-store');

    const poll = () => oauthPost(s, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: d.device_code });
    expect((await poll()).json()).toMatchObject({ error: 'authorization_pending' });
    expect((await poll()).json()).toMatchObject({ error: 'slow_down' });
    clock.advance(5000);

    // The panel's page shows what waits; a wrong password approves nothing.
    const shown = await s.api('GET', `/api/v1/auth/device?code=${d.user_code.toLowerCase().replace('-', '')}`);
    expect(shown.json()).toMatchObject({ user_code: d.user_code, client_name: 'svc-cli', scope: 'read' });
    expectError(await s.api('POST', '/api/v1/auth/device/approve', { user_code: d.user_code, username: 'alice', password: 'wrong password' }, { authorization: '' }), 401, 'invalid_credentials');
    const ok = await s.api('POST', '/api/v1/auth/device/approve', { user_code: d.user_code, username: 'alice', password: PASSWORD }, { authorization: '' });
    expect(ok.json()).toMatchObject({ approved: true, scope: 'read' });
    expectError(await s.api('POST', '/api/v1/auth/device/approve', { user_code: d.user_code, username: 'alice', password: PASSWORD }, { authorization: '' }), 404, 'not_found');

    const tokens = await poll();
    expect(tokens.statusCode, tokens.body).toBe(200);
    expect(tokens.json()).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'read', refresh_token: expect.stringMatching(/^rt_/) });
    expect((await poll()).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await me(tokens.json().access_token)).json()).toMatchObject({ username: 'alice', scope: 'read' });
  });

  it('is denied from the panel, and a read credential cannot approve a write sign-in', async () => {
    const d = (await oauthPost(s, '/oauth/device_authorization', { scope: 'write' })).json();
    const reader = await signIn(s, 'alice', 'read');
    expectError(await s.api('POST', '/api/v1/auth/device/approve', { user_code: d.user_code }, bearer(reader.access)), 403, 'insufficient_scope');
    expect((await s.api('POST', '/api/v1/auth/device/deny', { user_code: d.user_code }, bearer(reader.access))).statusCode).toBe(200);
    clock.advance(5000);
    expect((await oauthPost(s, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: d.device_code })).json()).toMatchObject({ error: 'access_denied' });
  });

  it('bounds the sign-ins one address may start: 30 in 10 minutes', async () => {
    const from = (ip: string) => s.app.inject({ method: 'POST', url: '/oauth/device_authorization', remoteAddress: ip, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'scope=read' });
    for (let i = 0; i < 30; i++) expect((await from('198.51.100.7')).statusCode).toBe(200);
    const refused = await from('198.51.100.7');
    expect({ status: refused.statusCode, error: refused.json().error }).toEqual({ status: 429, error: 'slow_down' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await from('198.51.100.8')).statusCode).toBe(200);
  });

  it('expires after 10 minutes', async () => {
    const d = (await oauthPost(s, '/oauth/device_authorization', {})).json();
    clock.advance(601_000);
    expect((await oauthPost(s, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: d.device_code })).json()).toMatchObject({ error: 'expired_token' });
  });
});

describe('access tokens', () => {
  it('are EdDSA JWTs of 15 minutes with the user, session, scope and roles, verifiable with the published JWKS', async () => {
    const t = await signIn(s, 'alice', 'deploy');
    expect(decodeProtectedHeader(t.access)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt', kid: expect.any(String) });
    const c = decodeJwt(t.access);
    expect(c).toMatchObject({ iss: s.ctx.config.publicUrl, aud: s.ctx.config.publicUrl, sub: alice, sid: expect.stringMatching(/^as_/), scope: 'deploy', teams: { [team]: 'member' } });
    expect((c.exp as number) - (c.iat as number)).toBe(900);
    const jwks = await s.api('GET', '/.well-known/jwks.json', undefined, { authorization: '' });
    expect(jwks.json().keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(JSON.stringify(jwks.json())).not.toContain('"d"');
    const { payload } = await jwtVerify(t.access, createLocalJWKSet(jwks.json()), { currentDate: new Date(clock.now()) });
    expect(payload.sub).toBe(alice);
    // The private key is stored sealed.
    const row = (await s.db.query<{ private_sealed: string }>('SELECT private_sealed FROM signing_keys')).rows[0];
    expect(row.private_sealed).toMatch(/^v1\./);
  });

  it('act like an API token of the same scope on /api/v1 and /mcp', async () => {
    const reader = await signIn(s, 'alice', 'read');
    const writer = await signIn(s, 'alice', 'write');
    expect((await s.api('GET', `/api/v1/teams/${team}`, undefined, bearer(reader.access))).statusCode).toBe(200);
    expectError(await s.api('POST', '/api/v1/tokens', { name: 'x' }, bearer(reader.access)), 403, 'insufficient_scope');
    expect((await s.api('POST', '/api/v1/tokens', { name: 'x' }, bearer(writer.access))).statusCode).toBe(201);
    expectError(await s.api('PUT', `/api/v1/teams/${team}/members/bob`, { role: 'viewer' }, bearer(writer.access)), 403, 'forbidden');
    const mcp = await s.api('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...bearer(reader.access), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' });
    expect(mcp.statusCode, mcp.body).toBe(200);
    expect(JSON.stringify(mcp.json())).toContain('"tools"');
  });

  it('answer 401 token_expired once 15 minutes have passed on the server clock', async () => {
    const t = await signIn(s, 'alice');
    clock.advance(899_000);
    expect((await me(t.access)).statusCode).toBe(200);
    clock.advance(1000);
    expectError(await me(t.access), 401, 'token_expired');
    expectError(await s.api('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' }, { ...bearer(t.access), 'content-type': 'application/json', accept: 'application/json, text/event-stream' }), 401, 'token_expired');
  });

  it('refuse malformed tokens, alg none, a wrong typ, missing claims, foreign issuers and oversized values', async () => {
    const now = Math.floor(clock.now() / 1000);
    const url = s.ctx.config.publicUrl;
    const good = { iss: url, aud: url, sub: alice, sid: 'as_x', scope: 'write', jti: 'j', iat: now, exp: now + 600 };
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(good)).toString('base64url')}.`;
    const cases: [string, string][] = [
      ['malformed', 'eyJhbGciOi.bm90IGpzb24.c2ln'],
      ['alg none', unsigned],
      ['wrong typ', await forge({ typ: 'JWT' }, good)],
      ['missing sid', await forge({ typ: 'at+jwt' }, { ...good, sid: undefined })],
      ['other issuer', await forge({ typ: 'at+jwt' }, { ...good, iss: 'https://elsewhere.example' })],
      ['other audience', await forge({ typ: 'at+jwt' }, { ...good, aud: 'https://elsewhere.example' })],
      ['unknown kid', await forge({ typ: 'at+jwt', kid: 'nope' }, good)],
      ['oversized', `eyJ${'a'.repeat(9000)}.a.b`],
    ];
    for (const [what, token] of cases) {
      const res = await me(token);
      expect({ what, status: res.statusCode, code: res.json().error?.code }).toEqual({ what, status: 401, code: 'invalid_token' });
    }
  });
});

describe('refresh tokens and sign-out', () => {
  it('rotate on every use; a used one presented again revokes the session and its access tokens', async () => {
    const t = await signIn(s, 'alice');
    const next = await oauthPost(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: t.refresh });
    expect(next.statusCode, next.body).toBe(200);
    const { access_token, refresh_token } = next.json();
    expect(refresh_token).not.toBe(t.refresh);
    expect(decodeJwt(access_token).sid).toBe(decodeJwt(t.access).sid);
    expect((await me(access_token)).statusCode).toBe(200);

    const kept = await s.db.query('SELECT 1 FROM refresh_tokens WHERE session_id = $1', [decodeJwt(t.access).sid]);
    expect(kept.rows).toHaveLength(2);
    const replay = await oauthPost(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: t.refresh });
    expect({ status: replay.statusCode, error: replay.json().error }).toEqual({ status: 400, error: 'invalid_grant' });
    expectError(await me(access_token), 401, 'token_revoked');
    expect((await oauthPost(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token })).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('keep a used refresh token a day (to catch its reuse), not longer', async () => {
    const t = await signIn(s, 'alice');
    let refresh = t.refresh;
    for (let i = 0; i < 3; i++) {
      clock.advance(13 * 3_600_000);
      const next = await oauthPost(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: refresh });
      expect(next.statusCode, next.body).toBe(200);
      refresh = next.json().refresh_token;
    }
    const rows = await s.db.query('SELECT used_at FROM refresh_tokens WHERE session_id = $1', [decodeJwt(t.access).sid]);
    // The first, used 26 h before the last refresh, is gone; the two used since and the live one remain.
    expect(rows.rows).toHaveLength(3);
  });

  it('sign-out (revoking the refresh token, or logout with the access token) ends the session at once', async () => {
    const a = await signIn(s, 'alice');
    expect((await me(a.access)).statusCode).toBe(200);
    expect((await oauthPost(s, '/oauth/revoke', { token: a.refresh })).statusCode).toBe(200);
    expectError(await me(a.access), 401, 'token_revoked');
    expect((await oauthPost(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: a.refresh })).json()).toMatchObject({ error: 'invalid_grant' });

    const b = await signIn(s, 'alice');
    expect((await s.api('POST', '/api/v1/auth/logout', undefined, bearer(b.access))).statusCode).toBe(200);
    expectError(await me(b.access), 401, 'token_revoked');
    // RFC 7009: unknown tokens are answered 200 too.
    expect((await oauthPost(s, '/oauth/revoke', { token: 'rt_unknown' })).statusCode).toBe(200);
  });
});

describe('sign-in sessions', () => {
  it('are listed to their user, who may end one from another session', async () => {
    await createUser(s, 'carl');
    const laptop = await signIn(s, 'carl');
    clock.advance(1000);
    const desktop = await signIn(s, 'carl');
    const list = await s.api('GET', '/api/v1/auth/sessions', undefined, bearer(laptop.access));
    expect(list.statusCode, list.body).toBe(200);
    const items = list.json().items as { id: string; current: boolean; client_name: string }[];
    expect(items.map((i) => i.id)).toEqual([decodeJwt(desktop.access).sid, decodeJwt(laptop.access).sid]);
    expect(items.map((i) => i.current)).toEqual([false, true]);
    expectError(await s.api('DELETE', `/api/v1/auth/sessions/${items[0].id}`, undefined, bearer((await signIn(s, 'bob')).access)), 404, 'not_found');
    expectError(await s.api('DELETE', `/api/v1/auth/sessions/${items[0].id}`, undefined, bearer((await signIn(s, 'carl', 'read')).access)), 403, 'insufficient_scope');
    expect((await s.api('DELETE', `/api/v1/auth/sessions/${items[0].id}`, undefined, bearer(laptop.access))).statusCode).toBe(200);
    expectError(await me(desktop.access), 401, 'token_revoked');
    expect((await me(laptop.access)).statusCode).toBe(200);
  });
});

describe('bad input on /oauth/token', () => {
  it("answers OAuth's error fields, never the family's object", async () => {
    const cases: [Record<string, string> | string, number, string][] = [
      [{}, 400, 'invalid_request'],
      [{ grant_type: 'password', username: 'alice', password: PASSWORD }, 400, 'unsupported_grant_type'],
      [{ grant_type: 'refresh_token' }, 400, 'invalid_request'],
      [{ grant_type: 'refresh_token', refresh_token: 'rt_nope' }, 400, 'invalid_grant'],
      [{ grant_type: DEVICE_GRANT, device_code: 'dc_nope' }, 400, 'invalid_grant'],
      ['grant_type=refresh_token&grant_type=refresh_token', 400, 'invalid_request'],
      [`grant_type=refresh_token&refresh_token=${'x'.repeat(40_000)}`, 413, 'invalid_request'],
    ];
    for (const [body, status, error] of cases) {
      const payload = typeof body === 'string' ? body : new URLSearchParams(body).toString();
      const res = await s.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
      expect({ body: payload.slice(0, 60), status: res.statusCode, error: res.json().error }).toEqual({ body: payload.slice(0, 60), status, error });
      expect(res.json().error_description).toMatch(/\w/);
    }
    const json = await s.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/json' }, payload: '{"grant_type":"nope"}' });
    expect(json.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const text = await s.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect({ status: text.statusCode, error: text.json().error }).toEqual({ status: 400, error: 'invalid_request' });
  });
});

describe('signing keys while the database does not answer', () => {
  it('go on verifying and signing with the keys known; a node that knows none refuses', async () => {
    const ring = new SigningKeyRing(s.ctx);
    const { kid } = await ring.signingKey();
    const query = s.ctx.db.query;
    s.ctx.db.query = async () => {
      throw new Error('the database does not answer');
    };
    try {
      clock.advance(2 * 60_000);
      expect(await ring.verificationKey(kid)).toBeDefined();
      expect((await ring.signingKey()).kid).toBe(kid);
      await expect(new SigningKeyRing(s.ctx).signingKey()).rejects.toThrow(/does not answer/);
    } finally {
      s.ctx.db.query = query;
    }
  });
});

describe('signing key rotation', () => {
  it('publishes the next key ahead, signs with it once active, and keeps the old one until its tokens expired', async () => {
    const before = await signIn(s, 'alice');
    const oldKid = decodeProtectedHeader(before.access).kid;
    clock.advance(31 * 86_400_000);
    const stillOld = await signIn(s, 'alice');
    expect(decodeProtectedHeader(stillOld.access).kid).toBe(oldKid);
    const kids = () => s.api('GET', '/.well-known/jwks.json', undefined, { authorization: '' }).then((r) => r.json().keys.map((k: { kid: string }) => k.kid));
    expect(await kids()).toHaveLength(2);

    clock.advance(3 * 60_000);
    const fresh = await signIn(s, 'alice');
    const newKid = decodeProtectedHeader(fresh.access).kid;
    expect(newKid).not.toBe(oldKid);
    expect((await me(stillOld.access)).statusCode).toBe(200);
    expect(await kids()).toEqual(expect.arrayContaining([oldKid, newKid]));

    clock.advance(21 * 60_000);
    expect(await kids()).toEqual([newKid]);
  });
});
