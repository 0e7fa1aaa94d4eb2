/** One suite (counters-cases.ts), run against both implementations: the memory counters must behave as Redis does. */
import { describe } from 'vitest';
import { ManualClock } from '../clock.ts';
import { randomHex } from '../ids.ts';
import { countersCases } from './counters-cases.ts';
import type { Counters } from './counters.ts';
import { MemoryCounters } from './memory-counters.ts';
import { RedisCounters } from './redis-counters.ts';

const impls: [string, () => Promise<Counters>][] = [['memory', async () => new MemoryCounters(new ManualClock(Date.now()))]];
if (process.env.REDIS_URL) {
  impls.push(['redis', async () => {
    const r = new RedisCounters(process.env.REDIS_URL as string, `t${randomHex(4)}:`);
    await r.ready();
    return r;
  }]);
} else console.warn('Redis counters suite skipped: REDIS_URL is not set');

describe.each(impls)('%s counters', (_name, make) => countersCases(make));
