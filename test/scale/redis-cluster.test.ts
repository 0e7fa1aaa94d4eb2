/**
 * Everything shared across nodes on a real Redis Cluster (three masters of this machine, started and stopped by the
 * test, test/support/throwaway-redis-cluster.ts), reached through REDIS_URL's cluster form: the limit stores' and
 * the counters' shared suites (the limit scripts strict: a key not in KEYS fails them, as a cluster refuses it when
 * the name hashes elsewhere), and the two-node suites (limits exact across nodes, cache invalidation over pub/sub,
 * one scheduler leader) with two server processes on it; and a team's slot moved to another master key by key
 * while two stores reserve and settle in it. The two-node suites need DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countersCases } from '../../core/counters/counters-cases.ts';
import { openRedis, type RedisClient } from '../../core/counters/redis-client.ts';
import { RedisCounters } from '../../core/counters/redis-counters.ts';
import { randomHex } from '../../core/ids.ts';
import { limitStoreCases, subject } from '../../core/limits/limit-store-cases.ts';
import { RedisLimitStore } from '../../core/limits/redis-limit-store.ts';
import { twoNodeLimitsCases } from '../limits/two-nodes-limits-cases.ts';
import { twoNodesCases } from '../nodes/two-nodes-cases.ts';
import { strictScripts } from '../support/strict-scripts.ts';
import { REAL_PG } from '../support/test-db.ts';
import { startThrowawayRedisCluster, type ThrowawayRedisCluster } from '../support/throwaway-redis-cluster.ts';

let cluster: ThrowawayRedisCluster;
// The limit stores' connection: one for the suite, ready before the first case (as a node waits for it at start).
let limits: RedisClient;
beforeAll(async () => {
  cluster = await startThrowawayRedisCluster();
  limits = strictScripts(openRedis(cluster.url, { kind: 'command', commandTimeoutMs: 2000 }));
  await new Promise((resolve) => limits.once('ready', resolve));
}, 120_000);
afterAll(async () => {
  limits?.disconnect();
  await cluster?.cleanup();
});

describe('a Redis Cluster', () => {
  it('spreads the teams of the limit store over every master (one slot per team)', async () => {
    const masters = new Set(await Promise.all(Array.from({ length: 12 }, (_, i) => cluster.masterOf(`svc:lim:{team-${i}}:res`))));
    expect(masters.size).toBe(3);
    expect(await cluster.masterOf('svc:lim:{team-1}:res')).toBe(await cluster.masterOf('svc:lim:{team-1}:k:key_1:m:2026-11'));
  });
});

describe('limit store on a Redis Cluster', () => limitStoreCases(() => ({
  store: new RedisLimitStore(limits, `t${randomHex(4)}:`),
  pass: (ms) => new Promise((res) => setTimeout(res, ms)),
})));

describe('counters on a Redis Cluster', () => countersCases(async () => {
  const c = new RedisCounters(cluster.url, `t${randomHex(4)}:`);
  await c.ready();
  return c;
}));

describe('a slot migration during a burst', () => {
  it('keeps a team\'s limits exact while its slot moves to another master key by key', async () => {
    const second = strictScripts(openRedis(cluster.url, { kind: 'command', commandTimeoutMs: 2000 }));
    await new Promise((resolve) => second.once('ready', resolve));
    const prefix = `t${randomHex(4)}:`;
    // Two nodes' stores on connections of their own.
    const stores = [new RedisLimitStore(limits, prefix), new RedisLimitStore(second, prefix)];
    const s = subject({ requestsPerMinute: 1_000_000, tokensPerMonth: 1_000_000 }, 1_000_000);
    const first = await stores[0].reserve(s, { tokens: 10, dollars: 0 });
    if (!first.ok) throw new Error('reserve failed');
    await stores[0].settle(s, first.reservationId, { tokens: 10, dollars: 0.01 });
    const res = `${prefix}lim:{${s.teamId}}:res`;
    const from = await cluster.masterOf(res);

    let stop = false;
    let admitted = 1;
    const errors: string[] = [];
    const worker = async (i: number) => {
      while (!stop) {
        const store = stores[i % 2];
        try {
          const r = await store.reserve(s, { tokens: 10, dollars: 0 });
          if (!r.ok) throw new Error(r.code);
          admitted++;
          await store.settle(s, r.reservationId, { tokens: 10, dollars: 0.01 });
        } catch (err) {
          errors.push((err as Error).message);
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    const burst = Promise.all(Array.from({ length: 8 }, (_, i) => worker(i)));
    await new Promise((r) => setTimeout(r, 200));
    const moved = await cluster.migrateSlotOf(res, (from + 1) % 3, 50);
    await new Promise((r) => setTimeout(r, 200));
    stop = true;
    await burst;

    // The month hashes and the request window at least (the reservations and in-flight hash exist only while calls are in flight).
    expect(moved).toBeGreaterThanOrEqual(3);
    expect(await cluster.masterOf(res)).toBe((from + 1) % 3);
    // Every script ran once, on one side or the other: nothing lost, nothing counted twice, nothing refused.
    expect(errors).toEqual([]);
    expect(admitted).toBeGreaterThan(50);
    expect(await stores[0].spend(s.keyId, s.teamId, s.month)).toMatchObject({ keyTokens: 10 * admitted, keyTokensInFlight: 0, teamTokens: 10 * admitted });
    expect(await stores[1].requests(s.keyId, s.teamId, s.key)).toMatchObject({ lastMinute: admitted });
    second.disconnect();
  });
});

if (!REAL_PG) console.warn('two-node tests on a Redis Cluster skipped: they need DATABASE_URL');
describe.skipIf(!REAL_PG)('limits across two nodes on a Redis Cluster', () => twoNodeLimitsCases(() => cluster.url));
describe.skipIf(!REAL_PG)('two nodes on one Postgres and a Redis Cluster', () => twoNodesCases(() => cluster.url));
