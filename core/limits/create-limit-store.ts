/** The limit store that matches the counters: Redis when REDIS_URL is set, memory otherwise. */
import type { Clock } from '../clock.ts';
import type { Counters } from '../counters/counters.ts';
import { RedisCounters } from '../counters/redis-counters.ts';
import type { LimitStore } from './limit-store.ts';
import { MemoryLimitStore } from './memory-limit-store.ts';
import { RedisLimitStore } from './redis-limit-store.ts';

export function createLimitStore(counters: Counters, clock: Clock): LimitStore {
  return counters instanceof RedisCounters ? new RedisLimitStore(counters.redis, counters.prefix) : new MemoryLimitStore(clock);
}
