/**
 * The Redis store's amounts in flight (redis-limit-store.ts, the team's `fl` hash): nothing is left behind once
 * every reservation is released, and what an older version kept in the month hashes (`it`/`id`) is counted and
 * moved, so nodes of both versions can run side by side during an upgrade.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { strictScripts } from '../../test/support/strict-scripts.ts';
import { randomHex } from '../ids.ts';
import type { LimitSubject } from './limit-store.ts';
import { RedisLimitStore } from './redis-limit-store.ts';

const url = process.env.REDIS_URL;
const redis = url ? strictScripts(new Redis(url)) : undefined;
afterAll(() => redis?.disconnect());

function setUp(key: LimitSubject['key'], team?: number) {
  const prefix = `tf${randomHex(4)}:`;
  const s: LimitSubject = { keyId: `k${randomHex(3)}`, teamId: `t${randomHex(3)}`, month: '2026-11', key, teamTokensPerMonth: team };
  const base = `${prefix}lim:{${s.teamId}}:`;
  return { store: new RedisLimitStore(redis as Redis, prefix), s, base, r: redis as Redis };
}

describe.skipIf(!redis)('Redis amounts in flight', () => {
  it('holds a field per key and month only while something is in flight, whatever dollar rounding left', async () => {
    const { store, s, base, r } = setUp({ dollarsPerMonth: 100 }, 10_000);
    const est = [0.1, 0.2, 0.7, 1 / 3, 0.30000000000000004];
    const held = await store.reserveMany(est.map((dollars) => ({ subject: s, estimate: { tokens: 7, dollars } })));
    expect(Object.keys(await r.hgetall(`${base}fl`)).sort()).toEqual([`kd|${s.keyId}|${s.month}`, `kt|${s.keyId}|${s.month}`, `tt|${s.month}`]);
    // Released in another order than reserved: the dollars in flight come back to about zero, not exactly.
    await store.settleMany(held.reverse().map((h) => ({ subject: s, reservationId: h.ok ? h.reservationId : '', actual: { tokens: 1, dollars: 0.01 } })));
    expect(await r.exists(`${base}fl`)).toBe(0);
    expect(await store.spend(s.keyId, s.teamId, s.month)).toMatchObject({ keyTokens: 5, keyTokensInFlight: 0, keyDollarsInFlight: 0, teamTokens: 5 });
  });

  it('counts and moves what an older version kept in flight in the month hashes, whichever version releases it', async () => {
    const { store, s, base, r } = setUp({ tokensPerMonth: 1000 }, 1000);
    // As an older node left them: 600 tokens and $0.5 reserved by one call still in flight.
    const old = `0ld1|${s.keyId}|${s.month}|600|0.5`;
    await r.zadd(`${base}res`, Date.now() + 600_000, old);
    await r.hset(`${base}k:${s.keyId}:m:${s.month}`, 't', '100', 'd', '1', 'it', '600', 'id', '0.5');
    await r.hset(`${base}t:m:${s.month}`, 't', '100', 'it', '600');
    expect(await store.spend(s.keyId, s.teamId, s.month)).toMatchObject({ keyTokens: 100, keyTokensInFlight: 600, keyDollarsInFlight: 0.5 });
    // 100 spent + 600 in flight: 301 more do not fit, 300 do.
    expect(await store.reserve(s, { tokens: 301, dollars: 0 })).toMatchObject({ ok: false, code: 'key_tokens_per_month' });
    expect(await r.hmget(`${base}k:${s.keyId}:m:${s.month}`, 'it', 'id')).toEqual([null, null]);
    expect(await r.hget(`${base}t:m:${s.month}`, 'it')).toBeNull();
    const fits = await store.reserve(s, { tokens: 300, dollars: 0 });
    expect(fits.ok).toBe(true);
    // The old call ends on a new node: its reservation is released from where it was moved.
    await store.settle(s, old, { tokens: 50, dollars: 0.2 });
    expect(await store.spend(s.keyId, s.teamId, s.month)).toMatchObject({ keyTokens: 150, keyDollars: 1.2, keyTokensInFlight: 300, keyDollarsInFlight: 0, teamTokens: 150 });
    if (fits.ok) await store.settle(s, fits.reservationId, { tokens: 10, dollars: 0 });
    expect(await r.exists(`${base}fl`)).toBe(0);
  });
});
