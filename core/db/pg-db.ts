/** Db on a real Postgres through a pg pool. int8 is parsed as a JS number (counts and ids fit in 2^53). */
import pg from 'pg';
import type { Db, Queryable, QueryResult } from './db.ts';

pg.types.setTypeParser(20, (v: string) => Number(v));

export function createPgDb(url: string, max = 10): Db {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});

  const wrap = (c: pg.PoolClient): Queryable => ({
    query: async <T>(sql: string, params?: readonly unknown[]) => {
      const r = await c.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    },
    exec: async (sql: string) => {
      await c.query(sql);
    },
  });

  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const r = await pool.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    },
    async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const out = await fn(wrap(c));
        await c.query('COMMIT');
        return out;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        c.release();
      }
    },
    async exec(sql: string): Promise<void> {
      await pool.query(sql);
    },
    async withLock<T>(lockId: number, fn: () => Promise<T>): Promise<T> {
      const c = await pool.connect();
      try {
        await c.query('SELECT pg_advisory_lock($1)', [lockId]);
        try {
          return await fn();
        } finally {
          await c.query('SELECT pg_advisory_unlock($1)', [lockId]);
        }
      } finally {
        c.release();
      }
    },
    async tryLock(lockId: number) {
      const c = await pool.connect();
      const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [lockId]);
      if (!r.rows[0].ok) {
        c.release();
        return null;
      }
      // The lock lives on this connection: keep it checked out until released.
      return async () => {
        await c.query('SELECT pg_advisory_unlock($1)', [lockId]).catch(() => {});
        c.release();
      };
    },
    async close() {
      await pool.end();
    },
  };
}
