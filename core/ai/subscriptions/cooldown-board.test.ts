/** Cooldowns shared across nodes: the same behaviour on memory counters and on Redis (when REDIS_URL is set). */
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../clock.ts';
import type { Counters } from '../../counters/counters.ts';
import { MemoryCounters } from '../../counters/memory-counters.ts';
import { RedisCounters } from '../../counters/redis-counters.ts';
import { randomHex } from '../../ids.ts';
import { CooldownBoard, rateLimitBackoffMs, readCooldown } from './cooldown-board.ts';

const REDIS = process.env.REDIS_URL;
const opened: Counters[] = [];
afterAll(async () => {
  for (const c of opened) await c.close();
});

async function pair(kind: 'memory' | 'redis', clock: ManualClock): Promise<[Counters, Counters]> {
  if (kind === 'memory') {
    const m = new MemoryCounters(clock);
    return [m, m];
  }
  const prefix = `t${randomHex(4)}:`;
  const a = new RedisCounters(REDIS as string, prefix);
  const b = new RedisCounters(REDIS as string, prefix);
  await Promise.all([a.ready(), b.ready()]);
  opened.push(a, b);
  return [a, b];
}

describe.each(REDIS ? (['memory', 'redis'] as const) : (['memory'] as const))('cooldown board on %s counters', (kind) => {
  it('shares a cooldown with another node at once, and forgets it when it ends', async () => {
    const clock = new ManualClock();
    const [ca, cb] = await pair(kind, clock);
    const a = new CooldownBoard(ca, clock);
    const b = new CooldownBoard(cb, clock);
    await Promise.all([a.start(), b.start()]);
    await b.prime([{ id: 'acc_1' }]);
    await a.set('acc_1', { until: clock.now() + 30_000, reason: 'rate_limited' });
    for (let i = 0; i < 50 && !b.get('acc_1'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(b.get('acc_1')).toEqual({ until: clock.now() + 30_000, reason: 'rate_limited' });
    // A node that starts later reads it from the counters.
    const late = new CooldownBoard(cb, clock);
    await late.prime([{ id: 'acc_1' }]);
    expect(late.get('acc_1')?.reason).toBe('rate_limited');
    expect(await readCooldown(cb, 'acc_1', clock.now())).toMatchObject({ reason: 'rate_limited' });
    clock.advance(30_001);
    expect(b.get('acc_1')).toBeUndefined();
  });

  it('keeps the longer of two cooldowns, and a clear reaches the other node', async () => {
    const clock = new ManualClock();
    const [ca, cb] = await pair(kind, clock);
    const a = new CooldownBoard(ca, clock);
    const b = new CooldownBoard(cb, clock);
    await Promise.all([a.start(), b.start(), b.prime([{ id: 'acc_2' }])]);
    await a.set('acc_2', { until: clock.now() + 60_000, reason: 'server_error' });
    await a.set('acc_2', { until: clock.now() + 1000, reason: 'rate_limited' });
    expect(a.get('acc_2')?.reason).toBe('server_error');
    for (let i = 0; i < 50 && !b.get('acc_2'); i++) await new Promise((r) => setTimeout(r, 10));
    await a.clear('acc_2');
    for (let i = 0; i < 50 && b.get('acc_2'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(b.get('acc_2')).toBeUndefined();
  });

  it('counts 429s in a row for an exponential backoff, and a success ends the run', async () => {
    const clock = new ManualClock();
    const [ca] = await pair(kind, clock);
    const a = new CooldownBoard(ca, clock);
    expect([await a.strike('acc_3'), await a.strike('acc_3'), await a.strike('acc_3')]).toEqual([1, 2, 3]);
    await a.forgive('acc_3');
    expect(await a.strike('acc_3')).toBe(1);
    expect([1, 2, 3, 12, 40].map(rateLimitBackoffMs)).toEqual([1000, 2000, 4000, 1_800_000, 1_800_000]);
  });
});
