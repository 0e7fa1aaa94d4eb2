/**
 * The Redis store's request windows in buckets (redis-limit-store.ts, `k:<key>:w`), at the edges a test cannot
 * reach by waiting: Redis time cannot be moved, so the hash is written as a past (or a clock ahead) would have left
 * it, and the next reserve must read it as a window of that age would be read.
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
const none = { tokens: 0, dollars: 0 };

/** A store with a prefix of its own, a subject, and the key's window hash name. */
function setUp(key: LimitSubject['key']) {
  const prefix = `tw${randomHex(4)}:`;
  const s: LimitSubject = { keyId: `k${randomHex(3)}`, teamId: `t${randomHex(3)}`, month: '2026-11', key };
  return { store: new RedisLimitStore(redis as Redis, prefix), s, hash: `${prefix}lim:{${s.teamId}}:k:${s.keyId}:w` };
}

/** Redis's current second and minute (the buckets a reserve made now would count in). */
async function nowBuckets(): Promise<{ second: number; minute: number }> {
  const [sec, micro] = await (redis as Redis).time();
  const ms = Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
  return { second: Math.floor(ms / 1000), minute: Math.floor(ms / 60_000) };
}

describe.skipIf(!redis)('Redis request windows in buckets', () => {
  it('drops the buckets that left the minute and the day, subtracting them from the running totals', async () => {
    const { store, s, hash } = setUp({ requestsPerMinute: 100, requestsPerDay: 10 });
    const { second, minute } = await nowBuckets();
    // 5 calls 70 s ago (out of the minute, in the day), 3 calls 25 h ago (out of the day), 2 calls 30 s ago.
    await (redis as Redis).hset(hash, 'so', second - 70, 'sn', 7, `s${second - 70}`, 5, `s${second - 30}`, 2,
      'mo', minute - 1500, 'mn', 10, `m${minute - 1500}`, 3, `m${minute - 2}`, 5, `m${minute - 1}`, 2);
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 2, lastDay: 7 });
    expect((await store.reserve(s, none)).ok).toBe(true);
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 3, lastDay: 8 });
    const fields = await (redis as Redis).hgetall(hash);
    expect(fields).toMatchObject({ sn: '3', mn: '8' });
    expect(fields[`s${second - 70}`]).toBeUndefined();
    expect(fields[`m${minute - 1500}`]).toBeUndefined();
    // Two more fill the day; the refusal says when its oldest counted minute leaves (about 23 h 58 min).
    expect((await store.reserve(s, none)).ok).toBe(true);
    expect((await store.reserve(s, none)).ok).toBe(true);
    const r = await store.reserve(s, none);
    expect(r).toMatchObject({ ok: false, code: 'key_requests_per_day', used: 10 });
    if (!r.ok) expect(r.retryAfterMs).toBeGreaterThan(86_400_000 - 4 * 60_000);
  });

  it('says when the oldest call still counted leaves the minute', async () => {
    const { store, s, hash } = setUp({ requestsPerMinute: 3 });
    const { second } = await nowBuckets();
    await (redis as Redis).hset(hash, 'so', second - 40, 'sn', 2, `s${second - 40}`, 2);
    expect((await store.reserve(s, none)).ok).toBe(true);
    const r = await store.reserve(s, none);
    expect(r).toMatchObject({ ok: false, code: 'key_requests_per_minute', limit: 3, used: 3 });
    // The bucket of 40 s ago leaves 20 s from now (give or take the second the test itself took).
    if (!r.ok) expect(r.retryAfterMs).toBeGreaterThan(17_000);
    if (!r.ok) expect(r.retryAfterMs).toBeLessThanOrEqual(20_000);
  });

  it('forgets a whole window after an idle window, however many buckets it had', async () => {
    const { store, s, hash } = setUp({ requestsPerMinute: 2 });
    const { second } = await nowBuckets();
    const old: (string | number)[] = [];
    for (let b = second - 200; b < second - 140; b++) old.push(`s${b}`, 1);
    await (redis as Redis).hset(hash, 'so', second - 200, 'sn', 60, ...old);
    expect((await store.reserve(s, none)).ok).toBe(true);
    expect((await store.reserve(s, none)).ok).toBe(true);
    expect((await store.reserve(s, none)).ok).toBe(false);
    expect(await (redis as Redis).hlen(hash)).toBeLessThanOrEqual(4);
  });

  it('never uncounts a call when Redis time steps back (a failover to a host whose clock is behind)', async () => {
    const { store, s, hash } = setUp({ requestsPerMinute: 3 });
    const { second } = await nowBuckets();
    // Written by a Redis whose clock was 30 s ahead.
    await (redis as Redis).hset(hash, 'so', second + 30, 'sn', 2, `s${second + 30}`, 2);
    expect((await store.reserve(s, none)).ok).toBe(true);
    expect(await store.reserve(s, none)).toMatchObject({ ok: false, code: 'key_requests_per_minute', used: 3 });
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 3, lastDay: null });
  });

  it('starts empty windows after Redis lost its data (a restart without persistence), and budgets come back with the seed', async () => {
    const { store, s, hash } = setUp({ requestsPerMinute: 2, tokensPerMonth: 1000 });
    const r = await store.reserve(s, { tokens: 100, dollars: 0 });
    expect(r.ok).toBe(true);
    if (r.ok) await store.settle(s, r.reservationId, { tokens: 900, dollars: 0 });
    const base = hash.slice(0, -'w'.length - `k:${s.keyId}:`.length);
    await (redis as Redis).del(hash, `${base}k:${s.keyId}:m:${s.month}`, `${base}t:m:${s.month}`, `${base}res`, `${base}fl`);
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 0, lastDay: null });
    await store.seed(s, { tokens: 900, dollars: 0 }, 900);
    expect(await store.reserve(s, { tokens: 200, dollars: 0 })).toMatchObject({ ok: false, code: 'key_tokens_per_month', used: 900 });
    expect((await store.reserve(s, { tokens: 50, dollars: 0 })).ok).toBe(true);
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 1, lastDay: null });
  });

  it('settles and reserves in one exchange, the settles first', async () => {
    const { store, s } = setUp({ tokensPerMonth: 1000 });
    const first = await store.reserve(s, { tokens: 600, dollars: 0 });
    if (!first.ok) throw new Error('reserve failed');
    // 600 in flight: 500 more would not fit, unless the settle (to 100 used) counts first.
    const { totals, results } = await store.exchange(
      [{ subject: s, reservationId: first.reservationId, actual: { tokens: 100, dollars: 0.5 } }],
      [{ subject: s, estimate: { tokens: 500, dollars: 0 } }, { subject: s, estimate: { tokens: 500, dollars: 0 } }],
    );
    expect(totals).toEqual([{ keyTokens: 100, keyDollars: 0.5, teamTokens: 100 }]);
    expect(results.map((x) => (x.ok ? 'ok' : x.code))).toEqual(['ok', 'key_tokens_per_month']);
    expect(await store.spend(s.keyId, s.teamId, s.month)).toMatchObject({ keyTokens: 100, keyTokensInFlight: 500 });
  });
});
