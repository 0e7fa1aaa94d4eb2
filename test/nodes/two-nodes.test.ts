/** The two-node cases (two-nodes-cases.ts: cache invalidation, one scheduler leader) on the Redis of REDIS_URL. */
import { describe } from 'vitest';
import { REAL_PG, REAL_REDIS } from '../support/test-db.ts';
import { twoNodesCases } from './two-nodes-cases.ts';

const multi = Boolean(REAL_PG && REAL_REDIS);
if (!multi) console.warn('two-nodes tests skipped: they need DATABASE_URL and REDIS_URL (one Postgres and one Redis shared by both nodes)');

describe.skipIf(!multi)('two nodes on one Postgres and one Redis', () => twoNodesCases(() => REAL_REDIS as string));
