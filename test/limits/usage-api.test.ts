/**
 * GET /api/v1/usage (groups, percentiles, time series, visibility, bad parameters) and GET /api/v1/quota
 * (authorized by a gateway key) over usage records written straight into the table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTeam, createUser, setRole, tokenFor } from '../api/identity-fixtures.ts';
import { startLimitsEnv, type LimitsEnv } from './limits-env.ts';

let env: LimitsEnv;
let keyA: { id: string; secret: string };
let ownKey: string;
let otherKey: string;
let viewer: Record<string, string>;
const DAY = 86_400_000;

async function record(keyId: string, teamId: string, at: number, f: Partial<Record<string, unknown>> = {}): Promise<void> {
  const r = { model: 'gpt-4o', served_model: 'gpt-4o', account_id: null, status: 200, error_code: null, input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0, latency_ms: 100, cost_usd: 0.01, ...f };
  await env.s.db.query(
    `INSERT INTO usage_records (at, key_id, team_id, model, served_model, account_id, client_style, status, error_code, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, usage_source, latency_ms, cost_usd) VALUES ($1,$2,$3,$4,$5,$6,'chat',$7,$8,$9,$10,$11,$12,'reported',$13,$14)`,
    [new Date(at), keyId, teamId, r.model, r.served_model, r.account_id, r.status, r.error_code, r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_write_tokens, r.latency_ms, r.cost_usd],
  );
}

beforeAll(async () => {
  env = await startLimitsEnv();
  const now = Date.now();
  const account = (await env.s.db.query<{ id: string }>("SELECT id FROM provider_accounts WHERE name = 'openai-fake'")).rows[0].id;
  keyA = await env.key({ name: 'alpha', limits: { tokens_per_month: 1000, dollars_per_month: 2, requests_per_minute: 60 } });
  for (const [i, latency] of [100, 200, 300, 400].entries()) {
    await record(keyA.id, env.teamId, now - 1000 * (i + 1), { latency_ms: latency, account_id: account, ...(i === 3 ? { status: 500, error_code: 'upstream_server', input_tokens: 0, output_tokens: 0, cost_usd: 0 } : {}) });
  }
  await record(keyA.id, env.teamId, now - DAY, { model: 'claude-sonnet-4-6', served_model: 'claude-sonnet-4-6', latency_ms: 1000, cost_usd: 0.5, cache_read_tokens: 40 });
  await record(keyA.id, env.teamId, now - 10 * DAY, { cost_usd: 7 });
  // An own key of ann, and a key of another team.
  const ann = await createUser(env.s, 'ann');
  const carl = await createUser(env.s, 'carl');
  await setRole(env.s, env.teamId, ann, 'member');
  await setRole(env.s, env.teamId, carl, 'viewer');
  const annWrite = bearer((await tokenFor(env.s, ann, 'write')).secret);
  const own = await env.s.api('POST', '/api/v1/keys', { name: 'ann-own', own: true }, { ...annWrite, 'x-svc-team': 'lim' });
  expect(own.statusCode, own.body).toBe(201);
  ownKey = own.json().id;
  await record(ownKey, env.teamId, now - 500, { cost_usd: 0.25 });
  const other = await createTeam(env.s, 'elsewhere');
  otherKey = (await env.s.api('POST', '/api/v1/keys', { name: 'far' }, { 'x-svc-team': 'elsewhere' })).json().id;
  await record(otherKey, other, now - 500, { cost_usd: 3 });
  viewer = bearer((await tokenFor(env.s, carl, 'read')).secret);
});
afterAll(async () => env?.close());

const usage = async (query: string, headers?: Record<string, string>) => {
  const r = await env.s.api('GET', `/api/v1/usage?${query}`, undefined, headers);
  expect(r.statusCode, r.body).toBe(200);
  return r.json();
};

describe('GET /api/v1/usage', () => {
  it('groups by model with calls, tokens, cost, errors and p50/p95 latency, over the last N days', async () => {
    const u = await usage(`days=7&key=${keyA.id}`);
    expect(u.group_by).toEqual(['model']);
    const byModel = Object.fromEntries(u.groups.map((g: { model: string }) => [g.model, g]));
    expect(byModel['gpt-4o']).toMatchObject({ calls: 4, input_tokens: 30, output_tokens: 15, cost_usd: 0.03, errors: 1, latency_ms: { p50: 250, p95: 385 } });
    expect(byModel['claude-sonnet-4-6']).toMatchObject({ calls: 1, cache_read_tokens: 40, cost_usd: 0.5, errors: 0, latency_ms: { p50: 1000, p95: 1000 } });
    expect(u.totals).toMatchObject({ calls: 5, cost_usd: 0.53, errors: 1 });
    // 7 daily buckets, today last; yesterday holds the claude call.
    expect(u.series).toHaveLength(7);
    expect(u.series[6]).toMatchObject({ calls: 4 });
    expect(u.series[5]).toMatchObject({ calls: 1, cost_usd: 0.5 });
    expect(u.series.slice(0, 5).every((p: { calls: number }) => p.calls === 0)).toBe(true);
    expect((await usage(`days=30&key=${keyA.id}`)).totals.cost_usd).toBe(7.53);
  });

  it('groups by key, account and team with their names, and by hour', async () => {
    const u = await usage('days=2&group_by=key,account,team&team=lim&interval=hour');
    const row = u.groups.find((g: { key: string; account: string | null }) => g.key === keyA.id && g.account !== null);
    expect(row).toMatchObject({ key_name: 'alpha', account_name: 'openai-fake', team: env.teamId, team_name: 'lim', calls: 4 });
    expect(u.series.length).toBeGreaterThanOrEqual(25);
    expect(u.series.length).toBeLessThanOrEqual(48);
    expect(u.series.reduce((n: number, p: { calls: number }) => n + p.calls, 0)).toBe(u.totals.calls);
  });

  it('shows the caller only what they may see', async () => {
    const all = await usage('days=7&group_by=key');
    expect(all.groups.map((g: { key: string }) => g.key).sort()).toEqual([keyA.id, ownKey, otherKey].sort());
    const seen = await usage('days=7&group_by=key', viewer);
    expect(seen.groups.map((g: { key: string }) => g.key)).toEqual([keyA.id]);
    expect((await env.s.api('GET', `/api/v1/usage?key=${otherKey}`, undefined, viewer)).statusCode).toBe(404);
    expect((await env.s.api('GET', '/api/v1/usage?team=elsewhere', undefined, viewer)).json().error.code).toBe('not_found');
  });

  it.each([['days=0'], ['days=400'], ['days=x'], ['group_by=model,colour'], ['days=40&interval=hour'], ['interval=week']])('refuses %s with 400', async (q) => {
    const r = await env.s.api('GET', `/api/v1/usage?${q}`);
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('validation_failed');
  });
});

describe('GET /api/v1/quota', () => {
  it('answers a gateway key with its limits, spend this month and what remains', async () => {
    const k = await env.key({ name: 'quota', limits: { tokens_per_month: 1000, dollars_per_month: 2, requests_per_minute: 60 } });
    for (let i = 0; i < 3; i++) await record(k.id, env.teamId, Date.now() - 1000, { cost_usd: 0.125, cache_write_tokens: 5 });
    const res = await fetch(`${env.s.url}/api/v1/quota`, { headers: { authorization: `Bearer ${k.secret}` } });
    expect(res.status).toBe(200);
    const q = await res.json();
    const now = new Date();
    expect(q).toMatchObject({
      key: { id: k.id, name: 'quota', team: env.teamId },
      month: now.toISOString().slice(0, 7),
      limits: { tokens_per_month: 1000, dollars_per_month: 2, requests_per_minute: 60, requests_per_day: null },
      // The records were written directly: no call went through the request limit.
      requests: { last_minute: 0, last_day: null },
      spent: { tokens: 60, dollars: 0.375 },
      in_flight: { tokens: 0, dollars: 0 },
      remaining: { tokens: 940, dollars: 1.625, requests_per_minute: 60, requests_per_day: null },
      team: { tokens_per_month: null, remaining_tokens: null },
      counters: 'ok',
    });
    expect(q.resets_at).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
  });

  it('accepts x-api-key and refuses a missing or unknown key with 401 in the family shape', async () => {
    expect((await fetch(`${env.s.url}/api/v1/quota`, { headers: { 'x-api-key': keyA.secret } })).status).toBe(200);
    const none = await fetch(`${env.s.url}/api/v1/quota`);
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe('invalid_api_key');
    const bad = await fetch(`${env.s.url}/api/v1/quota`, { headers: { authorization: 'Bearer sk-svc-nope' } });
    expect(bad.status).toBe(401);
    await env.s.api('PATCH', `/api/v1/keys/${keyA.id}`, { disabled: true });
    expect((await fetch(`${env.s.url}/api/v1/quota`, { headers: { authorization: `Bearer ${keyA.secret}` } })).status).toBe(401);
    await env.s.api('PATCH', `/api/v1/keys/${keyA.id}`, { disabled: false });
  });
});
