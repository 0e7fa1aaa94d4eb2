/**
 * Db on PGlite (Postgres compiled to WebAssembly, in this process). No longer the embedded default (a child Postgres
 * is: core/db/embedded-db.ts, figures in docs/performance.md); it stays for two uses: reading a data directory an
 * earlier svc wrote with it, to migrate it, and an in-memory database for tests run without DATABASE_URL (no
 * process to start, nothing left on disk). One connection: PGlite serialises queries itself; transactions get their
 * own exclusive turn.
 */
import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './db.ts';

export async function createPgliteDb(dir: string | 'memory'): Promise<Db> {
  if (dir !== 'memory') mkdirSync(dir, { recursive: true });
  const pg = new PGlite(dir === 'memory' ? 'memory://' : dir);
  await pg.waitReady;

  const wrap = (t: Transaction): Queryable => ({
    query: async <T>(sql: string, params?: readonly unknown[]) => {
      const r = await t.query<T>(sql, params as unknown[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
    exec: async (sql: string) => {
      await t.exec(sql);
    },
  });
  // In one process an advisory lock is only a mutex; PGlite's single session would let itself re-enter.
  const held = new Map<number, Promise<void>>();

  return {
    kind: 'embedded',
    textParams: true,
    async query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const r = await pg.query<T>(sql, params as unknown[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
    tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      return pg.transaction((t) => fn(wrap(t)));
    },
    async exec(sql: string): Promise<void> {
      await pg.exec(sql);
    },
    async withLock<T>(lockId: number, fn: () => Promise<T>): Promise<T> {
      while (held.has(lockId)) await held.get(lockId);
      let release!: () => void;
      held.set(lockId, new Promise<void>((r) => (release = r)));
      try {
        return await fn();
      } finally {
        held.delete(lockId);
        release();
      }
    },
    async tryLock(lockId: number) {
      if (held.has(lockId)) return null;
      let release!: () => void;
      held.set(lockId, new Promise<void>((r) => (release = r)));
      // One in-process session: the lock is lost only with the process, so check() answers true until released.
      let mine = true;
      return Object.assign(
        async () => {
          if (!mine) return;
          mine = false;
          held.delete(lockId);
          release();
        },
        { check: async () => mine },
      );
    },
    async close() {
      await pg.close();
    },
  };
}
