/**
 * Token refresh of subscription accounts with two app instances on one database and one set of counters (Redis
 * when REDIS_URL is set): concurrent refreshes of one account become a single refresh (the fake provider refuses a
 * reused refresh token, so a second refresh would show as invalid_grant), the rotated refresh token is the one kept,
 * a provider outage keeps the old token while it is valid and backs off, and a refused refresh token marks the
 * account needs_sign_in.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { loadConfig } from '../../core/config.ts';
import type { AppContext } from '../../core/context.ts';
import type { Counters } from '../../core/counters/counters.ts';
import { MemoryCounters } from '../../core/counters/memory-counters.ts';
import { RedisCounters } from '../../core/counters/redis-counters.ts';
import { newId, randomHex } from '../../core/ids.ts';
import { createLogger } from '../../core/logger.ts';
import { isSvcError } from '../../core/errors.ts';
import { TokenManager } from '../../core/ai/subscriptions/token-manager.ts';
import { readTokens, saveSignInTokens } from '../../core/ai/subscriptions/token-store.ts';
import { openContext } from '../../server/open-context.ts';
import { refreshExpiringTokens } from '../../control-plane/ai/quota/subscription-jobs.ts';
import { startPlanProvider, type FakePlanProvider } from '../fakes/fake-plan-provider.ts';
import { writePlanProfiles } from '../fakes/plan-profiles-file.ts';
import { createTestDatabase, REAL_REDIS, type TestDatabase } from '../support/test-db.ts';
import { SECRET_KEY } from '../support/test-server.ts';

let fake: FakePlanProvider;
let tdb: TestDatabase;
let a: AppContext;
let b: AppContext;
const counters: Counters[] = [];
const clock = new ManualClock(Date.now());

async function node(profiles: string, prefix: string, shared: MemoryCounters): Promise<AppContext> {
  const config = loadConfig({ SVC_SECRET_KEY: SECRET_KEY, SVC_PROVIDER_PROFILES: profiles, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let c: Counters = shared;
  if (REAL_REDIS) {
    const r = new RedisCounters(REAL_REDIS, prefix);
    await r.ready();
    c = r;
  }
  counters.push(c);
  return openContext(config, createLogger(config.logLevel), { clock, db: tdb.db, counters: c });
}

beforeAll(async () => {
  fake = await startPlanProvider('claude');
  tdb = await createTestDatabase();
  const profiles = writePlanProfiles([fake]);
  const prefix = `t${randomHex(4)}:`;
  const shared = new MemoryCounters(clock);
  a = await node(profiles, prefix, shared);
  b = await node(profiles, prefix, shared);
});

afterAll(async () => {
  for (const c of new Set(counters)) await c.close();
  await tdb?.db.close();
  await tdb?.drop();
  await fake?.close();
});

/** A signed-in Claude account whose access token expires `inMs` from now. */
async function account(inMs: number): Promise<string> {
  const id = newId('acc_');
  await tdb.db.query("INSERT INTO provider_accounts (id, name, provider, kind, state) VALUES ($1, $2, 'anthropic', 'subscription', 'active')", [id, `acc-${id}`]);
  const t = fake.oauth.mint();
  await saveSignInTokens(tdb.db, a.secretKey, id, { access: t.access_token, refresh: t.refresh_token, expiresAt: clock.now() + inMs, scopes: null, meta: {} }, clock.now());
  return id;
}

const acct = (id: string) => ({ id, provider: 'anthropic' as const, proxyUrl: null });
const refreshes = () => fake.oauth.grants.filter((g) => g === 'refresh_token').length;

beforeEach(() => {
  fake.oauth.delayMs = 0;
  fake.oauth.outages = 0;
});

describe('token refresh across two nodes', () => {
  it('turns concurrent refreshes on both nodes into one, and keeps the rotated refresh token', async () => {
    const id = await account(60_000); // inside the 10-minute lead: due for refresh
    const before = refreshes();
    const old = await readTokens(tdb.db, a.secretKey, id);
    fake.oauth.delayMs = 150;
    const ta = new TokenManager(a, { pollMs: 20 });
    const tb = new TokenManager(b, { pollMs: 20 });
    const got = await Promise.all([...Array(5)].flatMap(() => [ta.get(acct(id)), tb.get(acct(id))]));
    expect(refreshes()).toBe(before + 1);
    expect(fake.oauth.reusedRefreshTokens).toEqual([]);
    expect(new Set(got.map((t) => t.access)).size).toBe(1);
    expect(got[0].access).not.toBe(old?.access);
    const stored = await readTokens(tdb.db, a.secretKey, id);
    expect(stored?.version).toBe((old?.version ?? 0) + 1);
    expect(stored?.refresh).not.toBe(old?.refresh);
    // The rotated refresh token works: a later refresh (after a 401) succeeds, again exactly once.
    fake.oauth.delayMs = 50;
    const again = await Promise.all([ta.afterUnauthorized(acct(id), got[0]), tb.afterUnauthorized(acct(id), got[1])]);
    expect(refreshes()).toBe(before + 2);
    expect(again[0].access).toBe(again[1].access);
    expect(fake.oauth.reusedRefreshTokens).toEqual([]);
  });

  it('does not refresh a fresh token, and a node re-reads what another node refreshed', async () => {
    const id = await account(3_600_000);
    const before = refreshes();
    const ta = new TokenManager(a);
    const tb = new TokenManager(b);
    const first = await ta.get(acct(id));
    expect(refreshes()).toBe(before);
    // Node A learns the token was refused and refreshes; node B, asked after a 401 with the old token, re-reads.
    const fresh = await ta.afterUnauthorized(acct(id), first);
    const seenByB = await tb.afterUnauthorized(acct(id), first);
    expect(seenByB.access).toBe(fresh.access);
    expect(refreshes()).toBe(before + 1);
  });

  it('keeps the old token through a provider outage, backs off, then refreshes', async () => {
    const id = await account(120_000);
    const ta = new TokenManager(a);
    const old = await readTokens(tdb.db, a.secretKey, id);
    fake.oauth.outages = 1;
    const kept = await ta.get(acct(id));
    expect(kept.access).toBe(old?.access);
    const after = await readTokens(tdb.db, a.secretKey, id);
    expect(after?.refreshFailures).toBe(1);
    expect(after?.lastRefreshError).toMatch(/503/);
    expect(after?.nextRefreshAt).toBeGreaterThan(clock.now());
    // While backing off, nobody calls the provider again.
    const calls = fake.oauth.grants.length;
    expect((await new TokenManager(b).get(acct(id))).access).toBe(old?.access);
    expect(fake.oauth.grants.length).toBe(calls);
    // Once the old token has expired and the provider is still down: a clear 503, the account stays active.
    clock.advance(180_000);
    fake.oauth.outages = 1;
    const e = await new TokenManager(a).get(acct(id)).catch((x: unknown) => x);
    expect(isSvcError(e) && e.code).toBe('account_token_unavailable');
    const st = await tdb.db.query<{ state: string }>('SELECT state FROM provider_accounts WHERE id = $1', [id]);
    expect(st.rows[0].state).toBe('active');
    // The provider is back and the backoff has passed.
    clock.advance(600_000);
    const t = await new TokenManager(a).get(acct(id));
    expect(t.access).not.toBe(old?.access);
    expect((await readTokens(tdb.db, a.secretKey, id))?.refreshFailures).toBe(0);
  });

  it('refreshes tokens that expire soon from the scheduler job, and leaves fresh ones alone', async () => {
    const soon = await account(5 * 60_000);
    const later = await account(5 * 3_600_000);
    const before = { soon: await readTokens(tdb.db, a.secretKey, soon), later: await readTokens(tdb.db, a.secretKey, later) };
    await refreshExpiringTokens(a);
    expect((await readTokens(tdb.db, a.secretKey, soon))?.version).toBe((before.soon?.version ?? 0) + 1);
    expect((await readTokens(tdb.db, a.secretKey, later))?.version).toBe(before.later?.version);
  });

  it('marks the account needs_sign_in when the refresh token is refused', async () => {
    const id = await account(1000);
    fake.oauth.revokeRefreshTokens();
    const e = await new TokenManager(b).get(acct(id)).catch((x: unknown) => x);
    expect(isSvcError(e) && e.code).toBe('account_needs_sign_in');
    const r = await tdb.db.query<{ state: string }>('SELECT state FROM provider_accounts WHERE id = $1', [id]);
    expect(r.rows[0].state).toBe('needs_sign_in');
    const ch = await tdb.db.query<{ reason: string; to_state: string }>('SELECT reason, to_state FROM account_state_changes WHERE account_id = $1', [id]);
    expect(ch.rows).toEqual([{ reason: 'refresh_refused', to_state: 'needs_sign_in' }]);
  });
});
