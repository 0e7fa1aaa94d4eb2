/**
 * A Redis restart under the counters and the cache bus: commands fail while it is down (never the process), both
 * connections come back by themselves and the subscription is renewed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheBus, LookupCache } from '../../core/cache.ts';
import { RedisCounters } from '../../core/counters/redis-counters.ts';
import { startThrowawayRedis, type ThrowawayRedis } from '../support/throwaway-redis.ts';

describe('Redis restart', () => {
  let server: ThrowawayRedis;
  let a: RedisCounters;
  let b: RedisCounters;
  beforeAll(async () => {
    server = await startThrowawayRedis();
    a = new RedisCounters(server.url, 'f:');
    b = new RedisCounters(server.url, 'f:');
    await Promise.all([a.ready(), b.ready()]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await server?.cleanup();
  });

  it('fails commands while down, reconnects and re-subscribes', async () => {
    const bus = new CacheBus(a);
    await bus.start();
    const cache = bus.register(new LookupCache<string>('things'));
    const other = new CacheBus(b);
    await other.start();
    await cache.get('k', async () => 'v1');
    expect(cache.peek('k')).toBe('v1');

    await server.stop();
    await expect(a.hit('h', 10, 60_000)).rejects.toThrow();
    expect(await a.ping()).toBe(false);
    // Publishing while Redis is down is not an error for the caller.
    await other.invalidate('things', 'k');
    expect(cache.peek('k')).toBe('v1');

    await server.start();
    await expect.poll(() => a.ping(), { timeout: 20_000, interval: 100 }).toBe(true);
    expect((await a.hit('h', 10, 60_000)).allowed).toBe(true);
    // The subscription came back: invalidations reach the cache again.
    await expect
      .poll(
        async () => {
          await other.invalidate('things', 'k');
          return cache.peek('k');
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBeUndefined();
  });
});

describe('LookupCache stale-if-error', () => {
  it('serves an expired entry while reloading fails, and never one that was invalidated', async () => {
    const cache = new LookupCache<string>('s', 1);
    await cache.get('k', async () => 'v');
    await new Promise((r) => setTimeout(r, 5));
    const down = async (): Promise<string> => {
      throw new Error('database unreachable');
    };
    expect(await cache.get('k', down)).toBe('v');
    // Still expired: the next call asks the database again and gets the fresh value.
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', async () => 'w')).toBe('w');
    await new Promise((r) => setTimeout(r, 5));
    cache.drop('k');
    await expect(cache.get('k', down)).rejects.toThrow('database unreachable');
  });
});
