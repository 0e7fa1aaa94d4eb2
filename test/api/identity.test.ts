/**
 * Identity: API tokens (ttl, expiry on an injected clock, revocation at once, last_used_at, stored hashed), password
 * sign-in with the panel cookie (HttpOnly, SameSite, cross-site refusal, logout), SVC_ADMIN_TOKEN and the first-start
 * bootstrap of the administrator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { bootstrapAdmin } from '../../control-plane/identity/bootstrap-admin.ts';
import { createPgDb } from '../../core/db/pg-db.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, expectError, PASSWORD, setRole, tokenFor } from './identity-fixtures.ts';

const clock = new ManualClock();
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ clock });
  await createUser(s, 'alice');
  await createUser(s, 'bob');
});
afterAll(async () => s?.close());

const me = (secret: string) => s.api('GET', '/api/v1/users/me', undefined, bearer(secret));

describe('API tokens', () => {
  it('creates a token shown once, stored hashed, usable at once', async () => {
    const { secret, id } = await tokenFor(s, 'alice', 'write');
    expect(secret).toMatch(/^tk_[A-Za-z0-9_-]{20,}$/);
    const res = await me(secret);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ username: 'alice', scope: 'write', is_superuser: false });

    const shown = await s.api('GET', `/api/v1/tokens/${id}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain(secret);
    expect(shown.json().hint).toBe(`${secret.slice(0, 7)}…`);
    const row = await s.db.query<Record<string, unknown>>('SELECT * FROM api_tokens WHERE id = $1', [id]);
    expect(JSON.stringify(row.rows[0])).not.toContain(secret.slice(3));
  });

  it('accepts ttl as seconds, durations and never, measured on the server clock', async () => {
    for (const [ttl, seconds] of [[3600, 3600], ['90', 90], ['15m', 900], ['12h', 43200], ['3d', 259200], ['2w', 1209600]] as const) {
      const res = await s.api('POST', '/api/v1/tokens', { name: 'ttl', ttl, user: 'alice' });
      expect(res.statusCode, String(ttl)).toBe(201);
      expect(Date.parse(res.json().expires_at) - clock.now()).toBe(seconds * 1000);
    }
    const never = await s.api('POST', '/api/v1/tokens', { name: 'forever', ttl: 'never', user: 'alice' });
    expect(never.json().expires_at).toBeNull();
    const dflt = await s.api('POST', '/api/v1/tokens', { name: 'default', user: 'alice' });
    expect(Date.parse(dflt.json().expires_at) - clock.now()).toBe(90 * 86400 * 1000);
    expect(dflt.json().scope).toBe('read');
  });

  it('refuses bad ttl strings with 400 invalid_ttl', async () => {
    for (const ttl of ['', '0', '-5', '12x', '1.5h', 'forever', 'NEVER', '3 d', '1e3', 1.5, -1, 0, true, {}, [], '99999999999w']) {
      expectError(await s.api('POST', '/api/v1/tokens', { name: 'bad', ttl, user: 'alice' }), 400, 'invalid_ttl');
    }
    expectError(await s.api('POST', '/api/v1/auth/token', { username: 'alice', password: PASSWORD, ttl: '5y' }, { authorization: '' }), 400, 'invalid_ttl');
  });

  it('refuses an expired token with 401 token_expired once the clock passes the ttl', async () => {
    const { secret } = await tokenFor(s, 'alice', 'read', '1h');
    expect((await me(secret)).statusCode).toBe(200);
    clock.advance(3600_000 - 1);
    expect((await me(secret)).statusCode).toBe(200);
    clock.advance(1);
    expectError(await me(secret), 401, 'token_expired');
  });

  it('refuses a revoked token with 401 token_revoked immediately, though it was cached', async () => {
    const { secret, id } = await tokenFor(s, 'alice', 'write');
    expect((await me(secret)).statusCode).toBe(200);
    const del = await s.api('DELETE', `/api/v1/tokens/${id}`, undefined, bearer(secret));
    expect(del.statusCode).toBe(200);
    expect(del.json().revoked_at).not.toBeNull();
    expectError(await me(secret), 401, 'token_revoked');
    // Revoking twice keeps the first time.
    const again = await s.api('DELETE', `/api/v1/tokens/${id}`);
    expect(again.json().revoked_at).toBe(del.json().revoked_at);
  });

  it('records last_used_at when a token is used', async () => {
    const { secret, id } = await tokenFor(s, 'bob', 'read');
    expect((await s.api('GET', `/api/v1/tokens/${id}`)).json().last_used_at).toBeNull();
    const usedAt = clock.now();
    expect((await me(secret)).statusCode).toBe(200);
    await expect.poll(async () => (await s.api('GET', `/api/v1/tokens/${id}`)).json().last_used_at, { timeout: 5000 }).toBe(new Date(usedAt).toISOString());
  });

  it('refuses unknown and malformed tokens with 401 invalid_token', async () => {
    expectError(await me('tk_doesnotexist'), 401, 'invalid_token');
    expectError(await me('not-a-token'), 401, 'invalid_token');
    expectError(await s.api('GET', '/api/v1/users/me', undefined, { authorization: 'Basic YWxpY2U6eA==' }), 401, 'invalid_token');
  });

  it("keeps users' tokens apart: listing, showing and revoking another's token", async () => {
    const a = await tokenFor(s, 'alice', 'write');
    const b = await tokenFor(s, 'bob', 'write');
    const list = await s.api('GET', '/api/v1/tokens?limit=200', undefined, bearer(b.secret));
    expect(list.statusCode).toBe(200);
    expect(list.json().items.length).toBeGreaterThan(0);
    expect(list.json().items.every((t: { user: string; id: string }) => t.id !== a.id)).toBe(true);
    expectError(await s.api('GET', `/api/v1/tokens/${a.id}`, undefined, bearer(b.secret)), 404, 'not_found');
    expectError(await s.api('DELETE', `/api/v1/tokens/${a.id}`, undefined, bearer(b.secret)), 404, 'not_found');
    expectError(await s.api('GET', '/api/v1/tokens?user=alice', undefined, bearer(b.secret)), 403, 'forbidden');
    expect((await s.api('GET', '/api/v1/tokens?user=bob', undefined, bearer(b.secret))).statusCode).toBe(200);
    expect((await me(a.secret)).statusCode).toBe(200);
  });

  it('only lets a write token create tokens, and only for its own user', async () => {
    const w = await tokenFor(s, 'alice', 'write');
    const made = await s.api('POST', '/api/v1/tokens', { name: 'ci', scope: 'deploy', ttl: '30d' }, bearer(w.secret));
    expect(made.statusCode).toBe(201);
    expect((await me(made.json().token)).json()).toMatchObject({ username: 'alice', scope: 'deploy' });
    expectError(await s.api('POST', '/api/v1/tokens', { name: 'x', user: 'bob' }, bearer(w.secret)), 403, 'superuser_required');
    const d = made.json().token as string;
    expectError(await s.api('POST', '/api/v1/tokens', { name: 'x', scope: 'read' }, bearer(d)), 403, 'insufficient_scope');
    expectError(await s.api('POST', '/api/v1/tokens', { name: 'x', scope: 'admin' }, bearer(w.secret)), 400, 'validation_failed');
    expectError(await s.api('POST', '/api/v1/tokens', { name: 'x' }), 400, 'validation_failed');
  });
});

describe('password sign-in and the panel cookie', () => {
  const login = (username: string, password: string, headers: Record<string, string> = {}) =>
    s.api('POST', '/api/v1/auth/login', { username, password }, { authorization: '', ...headers });
  const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0];

  it('sets an HttpOnly, SameSite session cookie that authenticates requests', async () => {
    const res = await login('alice', PASSWORD);
    expect(res.statusCode).toBe(200);
    expect(res.json().user.username).toBe('alice');
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^svc_session=ses_[A-Za-z0-9_-]+;/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toMatch(/SameSite=(Strict|Lax)/);
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure'); // the test server's public URL is http
    const who = await s.api('GET', '/api/v1/users/me', undefined, { authorization: '', cookie: cookieOf(res) });
    expect(who.statusCode).toBe(200);
    expect(who.json()).toMatchObject({ username: 'alice', scope: 'write' });
  });

  it('accepts same-origin cookie requests and refuses cross-site ones with 403 cross_site_request', async () => {
    const cookie = cookieOf(await login('alice', PASSWORD));
    const get = (headers: Record<string, string>) => s.api('GET', '/api/v1/users/me', undefined, { authorization: '', cookie, ...headers });
    expect((await get({ 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    expect((await get({ 'sec-fetch-site': 'none' })).statusCode).toBe(200);
    expect((await get({ origin: 'http://localhost', host: 'localhost:80' })).statusCode).toBe(200);
    expect((await get({ origin: 'https://svc.example', host: 'svc.example:443', 'x-forwarded-proto': 'https' })).statusCode).toBe(200);
    expectError(await get({ origin: 'http://svc.example', host: 'svc.example:443', 'x-forwarded-proto': 'https' }), 403, 'cross_site_request');
    expectError(await get({ origin: 'null' }), 403, 'cross_site_request');
    expectError(await get({ 'sec-fetch-site': 'cross-site' }), 403, 'cross_site_request');
    expectError(await get({ 'sec-fetch-site': 'same-site' }), 403, 'cross_site_request');
    expectError(await get({ origin: 'https://evil.example' }), 403, 'cross_site_request');
    expectError(await s.api('POST', '/api/v1/teams', { name: 'csrf-team' }, { authorization: '', cookie, origin: 'https://evil.example' }), 403, 'cross_site_request');
    expect((await s.api('GET', '/api/v1/teams/csrf-team')).statusCode).toBe(404);
    // A Bearer token is not a cookie: no browser sends it on its own, so no cross-site check applies.
    const { secret } = await tokenFor(s, 'alice', 'read');
    expect((await s.api('GET', '/api/v1/users/me', undefined, { ...bearer(secret), 'sec-fetch-site': 'cross-site' })).statusCode).toBe(200);
  });

  it('refuses a wrong password or unknown user with 401 invalid_credentials, the same way', async () => {
    const wrong = await login('alice', 'not the password');
    expectError(wrong, 401, 'invalid_credentials');
    const unknown = await login('nobody', PASSWORD);
    expectError(unknown, 401, 'invalid_credentials');
    expect(unknown.json().error.message).toBe(wrong.json().error.message);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expectError(await s.api('POST', '/api/v1/auth/token', { username: 'alice', password: 'nope' }, { authorization: '' }), 401, 'invalid_credentials');
  });

  it('ends the session at logout, and an expired cookie does not block signing in again', async () => {
    const cookie = cookieOf(await login('bob', PASSWORD));
    const out = await s.api('POST', '/api/v1/auth/logout', undefined, { authorization: '', cookie });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/svc_session=;.*Max-Age=0/);
    expectError(await s.api('GET', '/api/v1/users/me', undefined, { authorization: '', cookie }), 401, 'unauthenticated');
    // The browser still sends the dead cookie when it signs in again.
    const again = await login('bob', PASSWORD, { cookie });
    expect(again.statusCode).toBe(200);
    // Sessions last 7 days on the server clock.
    const fresh = cookieOf(again);
    clock.advance(7 * 86400_000);
    expectError(await s.api('GET', '/api/v1/users/me', undefined, { authorization: '', cookie: fresh }), 401, 'unauthenticated');
    expect((await login('bob', PASSWORD, { cookie: fresh })).statusCode).toBe(200);
  });

  it('answers a malformed cookie with 401, not a server error', async () => {
    expectError(await s.api('GET', '/api/v1/users/me', undefined, { authorization: '', cookie: 'svc_session=%E0%A4%A' }), 401, 'unauthenticated');
  });

  it('exchanges a password for an API token (what svc login stores)', async () => {
    const res = await s.api('POST', '/api/v1/auth/token', { username: 'bob', password: PASSWORD, name: 'laptop', ttl: '1d' }, { authorization: '' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'laptop', scope: 'write' });
    expect((await me(res.json().token)).json().username).toBe('bob');
  });
});

describe('SVC_ADMIN_TOKEN', () => {
  it('is accepted as a superuser API token', async () => {
    const res = await s.api('GET', '/api/v1/users/me');
    expect(res.json()).toMatchObject({ is_superuser: true, scope: 'write' });
    const team = await createTeam(s, 'admin-made');
    expect((await s.api('PUT', `/api/v1/teams/${team}/limits`, { 'ai.keys': 3 })).statusCode).toBe(200);
    expect((await s.api('GET', '/api/v1/users')).statusCode).toBe(200);
    await setRole(s, team, 'alice', 'viewer');
  });

  it('admin-token callers must name the user of a token', async () => {
    expectError(await s.api('POST', '/api/v1/tokens', { name: 'nobody' }), 400, 'validation_failed');
  });
});

describe('first start', () => {
  let fresh: TestServer;
  beforeAll(async () => {
    fresh = await startTestServer({ env: { SVC_ADMIN_TOKEN: '' } });
  });
  afterAll(async () => fresh?.close());

  it('creates exactly one administrator, even when bootstrapped twice at once', async () => {
    // With a real Postgres, a second pool on the same database stands in for a second node starting at once.
    const other = fresh.databaseUrl ? createPgDb(fresh.databaseUrl, 3) : undefined;
    const secondNode = other ? { ...fresh.ctx, db: other } : fresh.ctx;
    const results = await Promise.all([bootstrapAdmin(fresh.ctx), bootstrapAdmin(secondNode), bootstrapAdmin(fresh.ctx), bootstrapAdmin(secondNode)]);
    await other?.close();
    const made = results.filter((r) => r !== null);
    expect(made).toHaveLength(1);
    const users = await fresh.db.query<{ username: string; is_superuser: boolean }>('SELECT username, is_superuser FROM users');
    expect(users.rows).toEqual([{ username: 'admin', is_superuser: true }]);
    expect((await fresh.db.query('SELECT 1 FROM api_tokens')).rows).toHaveLength(1);
    expect(await bootstrapAdmin(fresh.ctx)).toBeNull();

    const admin = made[0]!;
    const who = await fresh.api('GET', '/api/v1/users/me', undefined, bearer(admin.token));
    expect(who.json()).toMatchObject({ username: 'admin', is_superuser: true, scope: 'write', teams: [{ name: 'default', role: 'owner' }] });
    const signIn = await fresh.api('POST', '/api/v1/auth/login', { username: 'admin', password: admin.password }, { authorization: '' });
    expect(signIn.statusCode).toBe(200);
  });

  it('without SVC_ADMIN_TOKEN, that string is just an invalid token', async () => {
    expectError(await fresh.api('GET', '/api/v1/users/me', undefined, bearer(ADMIN_TOKEN)), 401, 'invalid_token');
  });
});
