/**
 * The counters' shared suite: every implementation must pass it the same way. Run by counters.test.ts (memory,
 * one Redis) and test/scale/redis-cluster.test.ts (a Redis Cluster).
 */
import { afterAll, expect, it } from 'vitest';
import type { Counters } from './counters.ts';

export function countersCases(make: () => Promise<Counters>): void {
  const opened: Counters[] = [];
  const open = async () => {
    const c = await make();
    opened.push(c);
    return c;
  };
  afterAll(async () => Promise.all(opened.map((c) => c.close())));

  it('lets exactly `limit` hits through a window, concurrently, and says when a slot frees', async () => {
    const c = await open();
    const results = await Promise.all(Array.from({ length: 25 }, () => c.hit('w', 10, 60_000)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    const refused = results.find((r) => !r.allowed);
    expect(refused?.retryAfterMs).toBeGreaterThan(0);
    expect(refused?.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('records many hits at once as one after the other: the first ones while the window has room', async () => {
    const c = await open();
    expect(await c.hitMany('m', 10, 60_000, 4)).toEqual({ allowed: 4, count: 4, retryAfterMs: 0 });
    expect(await c.hit('m', 10, 60_000)).toMatchObject({ allowed: true, count: 5 });
    const partly = await c.hitMany('m', 10, 60_000, 8);
    expect(partly).toMatchObject({ allowed: 5, count: 10 });
    expect(partly.retryAfterMs).toBeGreaterThan(0);
    expect(partly.retryAfterMs).toBeLessThanOrEqual(60_000);
    const none = await c.hitMany('m', 10, 60_000, 3);
    expect(none).toMatchObject({ allowed: 0, count: 10 });
    expect(none.retryAfterMs).toBeGreaterThan(0);
  });

  it('increments, reads and expires values', async () => {
    const c = await open();
    expect(await c.incrBy('n', 5)).toBe(5);
    expect(await c.incrBy('n', 2.5)).toBe(7.5);
    expect(await c.get('n')).toBe(7.5);
    expect(await c.get('missing')).toBe(0);
    expect(await c.setValue('v', 'x', undefined, true)).toBe(true);
    expect(await c.setValue('v', 'y', undefined, true)).toBe(false);
    expect(await c.getValue('v')).toBe('x');
    await c.del('v');
    expect(await c.getValue('v')).toBeNull();
  });

  it('grants a lock to one holder at a time', async () => {
    const c = await open();
    const got = await Promise.all([c.lock('l', 5000), c.lock('l', 5000), c.lock('l', 5000)]);
    expect(got.filter(Boolean)).toHaveLength(1);
    await got.find(Boolean)?.();
    const again = await c.lock('l', 5000);
    expect(again).not.toBeNull();
  });

  it('delivers published messages to subscribers', async () => {
    const c = await open();
    const seen: string[] = [];
    await c.subscribe('ch', (m) => seen.push(m));
    await c.publish('ch', 'hello');
    for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(['hello']);
  });

  it('answers time and ping', async () => {
    const c = await open();
    expect(Math.abs((await c.time()) - Date.now())).toBeLessThan(5000);
    expect(await c.ping()).toBe(true);
  });
}
