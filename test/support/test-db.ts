/**
 * Isolated storage per test server: with DATABASE_URL, a fresh database on that server (dropped at close); without
 * it, an in-memory PGlite (no server process to start). With REDIS_URL, Redis under a random key prefix; without it, memory counters.
 */
import pg from 'pg';
import type { Clock } from '../../core/clock.ts';
import type { Counters } from '../../core/counters/counters.ts';
import { MemoryCounters } from '../../core/counters/memory-counters.ts';
import { RedisCounters } from '../../core/counters/redis-counters.ts';
import type { Db } from '../../core/db/db.ts';
import { createPgliteDb } from '../../core/db/pglite-db.ts';
import { createPgDb } from '../../core/db/pg-db.ts';
import { randomHex } from '../../core/ids.ts';

export const REAL_PG = process.env.DATABASE_URL || undefined;
export const REAL_REDIS = process.env.REDIS_URL || undefined;

export interface TestDatabase {
  url: string | undefined;
  db: Db;
  drop(): Promise<void>;
}

/** Creates an empty database; returns its URL (or an embedded one when no DATABASE_URL). */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!REAL_PG) {
    const db = await createPgliteDb('memory');
    return { url: undefined, db, drop: async () => {} };
  }
  const name = `svc_t_${randomHex(6)}`;
  const admin = new pg.Client({ connectionString: REAL_PG });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(REAL_PG);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = createPgDb(url, 5);
  return {
    url,
    db,
    drop: async () => {
      const c = new pg.Client({ connectionString: REAL_PG });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}

/** Counters isolated by a random Redis key prefix. */
export async function createTestCounters(clock: Clock): Promise<{ counters: Counters; prefix: string }> {
  const prefix = `t${randomHex(4)}:`;
  if (!REAL_REDIS) return { counters: new MemoryCounters(clock), prefix };
  const r = new RedisCounters(REAL_REDIS, prefix);
  await r.ready();
  return { counters: r, prefix };
}
