/**
 * The limit store that matches the counters: Redis when REDIS_URL is set, memory otherwise. One store per counters
 * instance: in a process that runs every role, the proxy (which reserves and settles) and the control plane (which
 * answers GET /api/v1/quota) must read the same memory store.
 *
 * On Redis the store has its own connection (auto-pipelined on one server: the scripts of concurrent calls issued
 * in the same tick go out in one write, far fewer syscalls on both sides), and a command that gets no answer within
 * COMMAND_TIMEOUT_MS fails (the gateway then refuses with 503).
 * The connection closes when the counters' own connection ends.
 */
import type { Clock } from '../clock.ts';
import type { Counters } from '../counters/counters.ts';
import type { RedisClient } from '../counters/redis-client.ts';
import { RedisCounters } from '../counters/redis-counters.ts';
import type { LimitStore } from './limit-store.ts';
import { MemoryLimitStore } from './memory-limit-store.ts';
import { RedisLimitStore } from './redis-limit-store.ts';

export const COMMAND_TIMEOUT_MS = 2000;

const stores = new WeakMap<Counters, LimitStore>();

function limitsConnection(counters: RedisCounters): RedisClient {
  const r = counters.connect({ kind: 'command', commandTimeoutMs: COMMAND_TIMEOUT_MS });
  r.on('error', () => {});
  counters.redis.once('end', () => r.disconnect());
  return r;
}

export function createLimitStore(counters: Counters, clock: Clock): LimitStore {
  let store = stores.get(counters);
  if (!store) {
    store = counters instanceof RedisCounters ? new RedisLimitStore(limitsConnection(counters), counters.prefix) : new MemoryLimitStore(clock);
    stores.set(counters, store);
  }
  return store;
}
