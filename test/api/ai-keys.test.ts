import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LookupCache } from '../../core/cache.ts';
import { GATEWAY_KEYS_CACHE } from '../../core/ai/cache-names.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, expectError, setRole, tokenFor } from './identity-fixtures.ts';

let s: TestServer;
const tok: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  s = await startTestServer();
  await createTeam(s, 'alpha');
  await createTeam(s, 'beta');
  for (const [user, team, role] of [['alice', 'alpha', 'member'], ['bob', 'alpha', 'viewer'], ['carol', 'alpha', 'admin'], ['dave', 'beta', 'member']]) {
    await createUser(s, user);
    await setRole(s, team, user, role);
    tok[user] = bearer((await tokenFor(s, user, 'write')).secret);
  }
  tok.aliceRead = bearer((await tokenFor(s, 'alice', 'read')).secret);
});
afterAll(async () => s?.close());

const alpha = { 'x-svc-team': 'alpha' };
const create = (body: unknown, headers: Record<string, string> = tok.alice) => s.api('POST', '/api/v1/keys', body, { ...alpha, ...headers });

describe('gateway keys', () => {
  it('shows the secret once on create and stores only its hash', async () => {
    const res = await create({ name: 'ci', models: ['claude-*', 'gpt-4o'] });
    expect(res.statusCode, res.body).toBe(201);
    const k = res.json();
    expect(k.key).toMatch(/^sk-svc-[A-Za-z0-9_-]{32}$/);
    expect(k).toMatchObject({ name: 'ci', own: false, owner: null, models: ['claude-*', 'gpt-4o'], limits: {}, log_bodies: 'off', disabled: false });
    expect(k.hint).toBe(`sk-svc-…${k.key.slice(-4)}`);
    expect(k.warnings).toBeUndefined();
    const row = await s.db.query<{ key_hash: string }>('SELECT key_hash FROM gateway_keys WHERE id = $1', [k.id]);
    expect(row.rows[0].key_hash).toBe(createHash('sha256').update(k.key).digest('hex'));
    for (const res2 of [await s.api('GET', `/api/v1/keys/${k.id}`, undefined, tok.alice), await s.api('GET', '/api/v1/keys', undefined, tok.alice), await s.api('PATCH', `/api/v1/keys/${k.id}`, { name: 'ci-2' }, tok.alice)]) {
      expect(res2.statusCode).toBe(200);
      expect(res2.body).not.toContain(k.key);
      expect(res2.body).not.toContain(row.rows[0].key_hash);
      expect(res2.body).not.toContain('"key"');
    }
  });

  it('needs a team, write scope and a writing role', async () => {
    expectError(await s.api('POST', '/api/v1/keys', { name: 'x' }, tok.alice), 400, 'team_required');
    expectError(await create({ name: 'x' }, tok.aliceRead), 403, 'insufficient_scope');
    expectError(await create({ name: 'x' }, tok.bob), 403, 'forbidden');
    expectError(await create({ name: 'x' }, tok.dave), 404, 'not_found');
    expect((await s.api('POST', '/api/v1/keys?team=alpha', { name: 'by-query' }, tok.alice)).statusCode).toBe(201);
  });

  it('keeps own keys visible to their owner and the team admins only', async () => {
    const own = (await create({ name: 'alice-own', own: true })).json();
    expect(own).toMatchObject({ own: true, owner: expect.any(String) });
    expect((await s.api('GET', `/api/v1/keys/${own.id}`, undefined, tok.alice)).statusCode).toBe(200);
    expect((await s.api('GET', `/api/v1/keys/${own.id}`, undefined, tok.carol)).statusCode).toBe(200);
    expectError(await s.api('GET', `/api/v1/keys/${own.id}`, undefined, tok.bob), 404, 'not_found');
    expectError(await s.api('GET', `/api/v1/keys/${own.id}`, undefined, tok.dave), 404, 'not_found');
    const bobList = (await s.api('GET', '/api/v1/keys?limit=200', undefined, tok.bob)).json().items as { id: string }[];
    expect(bobList.map((k) => k.id)).not.toContain(own.id);
    expect(bobList.length).toBeGreaterThan(0);
    const mine = (await s.api('GET', '/api/v1/keys?own=true', undefined, tok.alice)).json().items as { id: string }[];
    expect(mine.map((k) => k.id)).toEqual([own.id]);
    expectError(await s.api('POST', '/api/v1/keys', { name: 'x', own: true }, alpha), 400, 'validation_failed');
  });

  it('hides every key of another team', async () => {
    const k = (await create({ name: 'secret-team-key' })).json();
    expectError(await s.api('GET', `/api/v1/keys/${k.id}`, undefined, tok.dave), 404, 'not_found');
    expectError(await s.api('PATCH', `/api/v1/keys/${k.id}`, { name: 'mine' }, tok.dave), 404, 'not_found');
    expectError(await s.api('DELETE', `/api/v1/keys/${k.id}`, undefined, tok.dave), 404, 'not_found');
    expect((await s.api('GET', '/api/v1/keys', undefined, tok.dave)).json().items).toEqual([]);
    expectError(await s.api('GET', '/api/v1/keys?team=alpha', undefined, tok.dave), 404, 'not_found');
  });

  it('validates models and warns about patterns that match no known model', async () => {
    let res = await create({ name: 'typo', models: ['claude-sonet-*', 'gpt-4o'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().warnings).toHaveLength(1);
    expect(res.json().warnings[0]).toContain('claude-sonet-*');
    res = await create({ name: 'bad', models: ['gpt-**'] });
    expectError(res, 400, 'validation_failed');
    expect(res.json().error.message).toContain('models[0]');
    expectError(await create({ name: 'bad', models: ['has space'] }), 400, 'validation_failed');
    expectError(await create({ name: 'bad', models: ['a', 'a'] }), 400, 'validation_failed');
    expectError(await create({ name: 'bad', models: [''] }), 400, 'validation_failed');
    expectError(await create({ name: 'bad', models: 'claude-*' }), 400, 'validation_failed');
  });

  it('stores limits and refuses bad ones with the field named', async () => {
    const res = await create({ name: 'limited', limits: { requests_per_minute: 60, requests_per_day: 1000, tokens_per_month: 5_000_000, dollars_per_month: 12.5 }, log_bodies: '7d' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ limits: { requests_per_minute: 60, requests_per_day: 1000, tokens_per_month: 5_000_000, dollars_per_month: 12.5 }, log_bodies: '7d' });
    for (const [limits, field] of [
      [{ requests_per_minute: -1 }, 'requests_per_minute'],
      [{ requests_per_minute: 1.5 }, 'requests_per_minute'],
      [{ requests_per_day: 1e12 }, 'requests_per_day'],
      [{ dollars_per_month: 1e9 }, 'dollars_per_month'],
      [{ tokens_per_month: '100' }, 'tokens_per_month'],
      [{ tokens_per_week: 1 }, 'tokens_per_week'],
    ] as const) {
      const r = await create({ name: 'bad', limits });
      expectError(r, 400, 'validation_failed');
      expect(r.json().error.message).toContain(field);
    }
    expectError(await create({ name: 'bad', log_bodies: 'forever' }), 400, 'validation_failed');
    expectError(await create({ name: '   ' }), 400, 'validation_failed');
    expectError(await create({ name: 'x', team: 'beta' }), 400, 'validation_failed');
  });

  it('changes name, models, limits (replaced whole) and the disabled flag', async () => {
    const k = (await create({ name: 'to-change', limits: { requests_per_minute: 5, requests_per_day: 10 } })).json();
    const res = await s.api('PATCH', `/api/v1/keys/${k.id}`, { name: 'changed', models: ['gemini-*'], limits: { requests_per_day: 20, requests_per_minute: null }, disabled: true, log_bodies: '30d' }, tok.alice);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'changed', models: ['gemini-*'], limits: { requests_per_day: 20 }, disabled: true, log_bodies: '30d' });
    expect(res.json().limits).not.toHaveProperty('requests_per_minute');
    expectError(await s.api('PATCH', `/api/v1/keys/${k.id}`, { name: 'x' }, tok.aliceRead), 403, 'insufficient_scope');
    expectError(await s.api('PATCH', `/api/v1/keys/${k.id}`, { name: 'x' }, tok.bob), 403, 'forbidden');
    expectError(await s.api('PATCH', `/api/v1/keys/${k.id}`, { team: 'beta' }, tok.alice), 400, 'validation_failed');
    expectError(await s.api('PATCH', `/api/v1/keys/${k.id}`, { limits: { requests_per_minute: -5 } }, tok.alice), 400, 'validation_failed');
  });

  it('deletes a key for good', async () => {
    const k = (await create({ name: 'to-delete' })).json();
    expectError(await s.api('DELETE', `/api/v1/keys/${k.id}`, undefined, tok.bob), 403, 'forbidden');
    const res = await s.api('DELETE', `/api/v1/keys/${k.id}`, undefined, tok.alice);
    expect(res.statusCode).toBe(200);
    expect(res.json().deleted_at).toEqual(expect.any(String));
    expectError(await s.api('GET', `/api/v1/keys/${k.id}`, undefined, tok.alice), 404, 'not_found');
    expectError(await s.api('DELETE', `/api/v1/keys/${k.id}`, undefined, tok.alice), 404, 'not_found');
    const all = (await s.api('GET', '/api/v1/keys?limit=200', undefined, tok.alice)).json().items as { id: string }[];
    expect(all.map((x) => x.id)).not.toContain(k.id);
  });

  it('pages the list newest first with a cursor', async () => {
    await createTeam(s, 'paging');
    for (let i = 0; i < 5; i++) expect((await s.api('POST', '/api/v1/keys?team=paging', { name: `p${i}` })).statusCode).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await s.api('GET', `/api/v1/keys?team=paging&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json() as { items: { name: string }[]; next_cursor: string | null };
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items.map((k) => k.name));
      cursor = body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['p4', 'p3', 'p2', 'p1', 'p0']);
    expectError(await s.api('GET', '/api/v1/keys?limit=0'), 400, 'invalid_limit');
    expectError(await s.api('GET', '/api/v1/keys?cursor=nope'), 400, 'invalid_cursor');
  });

  it("refuses a key past the team's ai.keys limit with 422", async () => {
    await createTeam(s, 'small');
    expect((await s.api('PUT', '/api/v1/teams/small/limits', { 'ai.keys': 1 })).statusCode).toBe(200);
    expect((await s.api('POST', '/api/v1/keys?team=small', { name: 'one' })).statusCode).toBe(201);
    const res = await s.api('POST', '/api/v1/keys?team=small', { name: 'two' });
    expectError(res, 422, 'team_ai_keys');
    expect(res.json().error.details).toMatchObject({ limit: 'ai.keys', level: 'team', max: 1 });
  });

  it('drops the key from the gateway-key cache on every change', async () => {
    const res = await create({ name: 'cached' });
    const k = res.json();
    const hash = createHash('sha256').update(k.key).digest('hex');
    const cache = s.ctx.caches.register(new LookupCache<string>(GATEWAY_KEYS_CACHE));
    let loads = 0;
    const load = async () => `v${++loads}`;
    await cache.get(hash, load);
    expect(await cache.get(hash, load)).toBe('v1');
    await s.api('PATCH', `/api/v1/keys/${k.id}`, { disabled: true }, tok.alice);
    expect(await cache.get(hash, load)).toBe('v2');
    await s.api('DELETE', `/api/v1/keys/${k.id}`, undefined, tok.alice);
    expect(await cache.get(hash, load)).toBe('v3');
  });
});
