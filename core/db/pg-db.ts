/**
 * Db on a real Postgres through a pg pool. int8 is parsed as a JS number (counts and ids fit in 2^53).
 *
 * Connection loss is routine (a Postgres restart, a failover, pg_terminate_backend): every connection the pool hands
 * out carries an error listener while it is checked out, so a dropped socket fails the queries on it with a transient
 * error and never reaches the process as an unhandled 'error' event; a broken connection is destroyed on release, and
 * the pool opens fresh ones on demand. Each node names its sessions `svc-<pid>` (application_name, overridable in
 * DATABASE_URL) so an operator can see or end one node's sessions.
 */
import pg from 'pg';
import type { Db, LockLost, Queryable, QueryOptions, QueryResult } from './db.ts';

pg.types.setTypeParser(20, (v: string) => Number(v));

/** A checked-out connection that remembers whether it broke, so release() can tell the pool to discard it. */
interface Held {
  client: pg.PoolClient;
  /** The first connection error seen while checked out. */
  broken(): Error | undefined;
  onError(fn: (err: Error) => void): void;
  release(err?: unknown): void;
}

export function createPgDb(url: string, max = 10): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    // A blackholed host (failover with a moved address) must fail a connect, not hang it forever.
    connectionTimeoutMillis: 10_000,
    // Probes start after 10 s of silence, so a connection to a vanished primary is found dead (the OS default is 2 h).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: `svc-${process.pid}`,
  });
  // A dropped idle connection must not crash the process; the pool has already discarded it.
  pool.on('error', () => {});

  const checkout = async (): Promise<Held> => {
    const client = await pool.connect();
    let failure: Error | undefined;
    const listeners: ((err: Error) => void)[] = [];
    // pg emits 'error' on a client whose socket drops even while a query is running (after failing that query);
    // while checked out the pool does not listen, so without this the process would exit.
    const listener = (err: Error) => {
      failure ??= err;
      for (const fn of listeners) fn(err);
    };
    client.on('error', listener);
    let released = false;
    return {
      client,
      broken: () => failure,
      onError: (fn) => listeners.push(fn),
      release(err?: unknown) {
        if (released) return;
        released = true;
        client.removeListener('error', listener);
        // Passing an error makes the pool destroy the connection instead of reusing a dead or dirty one.
        client.release(failure ?? (err instanceof Error ? err : err === undefined ? undefined : new Error(String(err))));
      },
    };
  };

  const wrap = (c: pg.PoolClient): Queryable => ({
    query: async <T>(sql: string, params?: readonly unknown[], options?: QueryOptions) => {
      const r = options?.name ? await c.query({ name: options.name, text: sql, values: params as unknown[] }) : await c.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    },
    exec: async (sql: string) => {
      await c.query(sql);
    },
  });

  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<T>> {
      const r = options?.name ? await pool.query({ name: options.name, text: sql, values: params as unknown[] }) : await pool.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    },
    async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      const held = await checkout();
      let failed: unknown;
      try {
        await held.client.query('BEGIN');
        const out = await fn(wrap(held.client));
        await held.client.query('COMMIT');
        return out;
      } catch (e) {
        failed = e;
        // A failed ROLLBACK leaves the connection unusable: it is then discarded on release.
        await held.client.query('ROLLBACK').then(
          () => (failed = undefined),
          () => {},
        );
        throw e;
      } finally {
        held.release(failed);
      }
    },
    async exec(sql: string): Promise<void> {
      await pool.query(sql);
    },
    async withLock<T>(lockId: number, fn: () => Promise<T>): Promise<T> {
      const held = await checkout();
      // Only a failure of the lock's own statements makes the connection suspect; fn's errors are fn's.
      let failed: unknown;
      try {
        await held.client.query('SELECT pg_advisory_lock($1)', [lockId]).catch((e: unknown) => {
          failed = e;
          throw e;
        });
        try {
          return await fn();
        } finally {
          await held.client.query('SELECT pg_advisory_unlock($1)', [lockId]).catch((e: unknown) => (failed = e));
        }
      } finally {
        held.release(failed);
      }
    },
    async tryLock(lockId: number, onLost?: LockLost) {
      const held = await checkout();
      let r: pg.QueryResult<{ ok: boolean }>;
      try {
        r = await held.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [lockId]);
      } catch (e) {
        held.release(e);
        throw e;
      }
      if (!r.rows[0].ok) {
        held.release();
        return null;
      }
      // The lock lives on this connection: keep it checked out until released. If the connection dies, Postgres
      // has dropped the lock with the session; the holder is told so it stops acting as the owner.
      let released = false;
      held.onError((err) => {
        if (released) return;
        released = true;
        held.release(err);
        onLost?.(err);
      });
      return Object.assign(
        async () => {
          if (released) return;
          released = true;
          const failed = await held.client.query('SELECT pg_advisory_unlock($1)', [lockId]).then(
            () => undefined,
            (e: unknown) => e,
          );
          held.release(failed);
        },
        {
          // A round trip on the lock's own connection: fails when the session (and so the lock) is gone.
          check: async () => {
            if (released || held.broken()) return false;
            try {
              await held.client.query('SELECT 1');
              return true;
            } catch {
              return false;
            }
          },
        },
      );
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
    async close() {
      await pool.end();
    },
  };
}
