/**
 * The limit store that matches the counters: Redis when REDIS_URL is set, memory otherwise. One store per counters
 * instance: in a process that runs every role, the proxy (which reserves and settles) and the control plane (which
 * answers GET /api/v1/quota) must read the same memory store.
 */
import type { Clock } from '../clock.ts';
import type { Counters } from '../counters/counters.ts';
import { RedisCounters } from '../counters/redis-counters.ts';
import type { LimitStore } from './limit-store.ts';
import { MemoryLimitStore } from './memory-limit-store.ts';
import { RedisLimitStore } from './redis-limit-store.ts';

const stores = new WeakMap<Counters, LimitStore>();

export function createLimitStore(counters: Counters, clock: Clock): LimitStore {
  let store = stores.get(counters);
  if (!store) {
    store = counters instanceof RedisCounters ? new RedisLimitStore(counters.redis, counters.prefix) : new MemoryLimitStore(clock);
    stores.set(counters, store);
  }
  return store;
}
