/** The two-node limit cases (two-nodes-limits-cases.ts) on the Redis of REDIS_URL. */
import { describe } from 'vitest';
import { REAL_PG, REAL_REDIS } from '../support/test-db.ts';
import { twoNodeLimitsCases } from './two-nodes-limits-cases.ts';

const multi = Boolean(REAL_PG && REAL_REDIS);
if (!multi) console.warn('two-node limit tests skipped: they need DATABASE_URL and REDIS_URL');

describe.skipIf(!multi)('limits across two nodes', () => twoNodeLimitsCases(() => REAL_REDIS as string));
