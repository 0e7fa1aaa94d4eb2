/**
 * One suite for both limit stores (limit-store-cases.ts): the memory store must behave as the Redis store does. On
 * Redis the scripts run strict: one that touches a key it was not given fails (a Redis Cluster needs every key of a
 * script in KEYS).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { strictScripts } from '../../test/support/strict-scripts.ts';
import { ManualClock } from '../clock.ts';
import { randomHex } from '../ids.ts';
import { limitStoreCases, subject, type MadeStore } from './limit-store-cases.ts';
import { monthOf, msToNextMonth } from './limit-store.ts';
import { MemoryLimitStore } from './memory-limit-store.ts';
import { RedisLimitStore } from './redis-limit-store.ts';

const clients: Redis[] = [];
afterAll(() => clients.forEach((c) => c.disconnect()));

const impls: [string, () => MadeStore][] = [['memory', () => {
  const clock = new ManualClock(Date.now());
  return { store: new MemoryLimitStore(clock), pass: async (ms) => clock.advance(ms) };
}]];
if (process.env.REDIS_URL) {
  impls.push(['redis', () => {
    const r = strictScripts(new Redis(process.env.REDIS_URL as string));
    clients.push(r);
    return { store: new RedisLimitStore(r, `t${randomHex(4)}:`), pass: (ms) => new Promise((res) => setTimeout(res, ms)) };
  }]);
} else console.warn('Redis limit store suite skipped: REDIS_URL is not set');

const none = { tokens: 0, dollars: 0 };

describe.each(impls)('%s limit store', (_n, made) => limitStoreCases(made));

// Redis time cannot be moved a minute ahead in a test: the memory store, on a manual clock, shows the windows slide.
describe('memory limit store request counts over time', () => {
  it('lets calls leave the minute but not the day', async () => {
    const clock = new ManualClock(Date.now());
    const store = new MemoryLimitStore(clock);
    const s = subject({ requestsPerMinute: 5, requestsPerDay: 100 });
    for (let i = 0; i < 2; i++) expect((await store.reserve(s, none)).ok).toBe(true);
    clock.advance(61_000);
    expect((await store.reserve(s, none)).ok).toBe(true);
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 1, lastDay: 3 });
    clock.advance(86_400_000 - 60_000);
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 0, lastDay: 1 });
  });
});

describe('calendar months in UTC', () => {
  it('names the month and the time to its end', () => {
    expect(monthOf(Date.UTC(2026, 10, 30, 23, 59, 59))).toBe('2026-11');
    expect(monthOf(Date.UTC(2026, 11, 1, 0, 0, 0))).toBe('2026-12');
    expect(msToNextMonth(Date.UTC(2026, 10, 30, 23, 59, 0))).toBe(60_000);
  });
});
