/**
 * Connection loss on every kind of connection the pg Db holds (pool queries, transactions, withLock, the scheduler's
 * lock): terminating backends or restarting Postgres fails the affected calls, never the process (vitest fails a
 * run on any unhandled error), and the pool and the scheduler recover by themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../core/context.ts';
import { LOCKS, type Db } from '../../core/db/db.ts';
import { createPgDb } from '../../core/db/pg-db.ts';
import { createLogger } from '../../core/logger.ts';
import { Scheduler } from '../../core/scheduler.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.ts';

const recovered = (db: Db) =>
  expect.poll(async () => (await db.query<{ one: number }>('SELECT 1 AS one').catch(() => ({ rows: [{ one: 0 }] }))).rows[0].one, { timeout: 30_000, interval: 100 }).toBe(1);

describe('Postgres connection loss', () => {
  let server: ThrowawayPostgres;
  let db: Db;
  beforeAll(async () => {
    server = await startThrowawayPostgres();
    db = createPgDb(server.url, 5);
    await db.exec('CREATE TABLE scheduler_leader (id int PRIMARY KEY, node text, since timestamptz); CREATE TABLE t (v int)');
  });
  afterAll(async () => {
    await db?.close();
    await server?.cleanup();
  });

  it('fails a transaction, a held lock and pool queries when backends are terminated, then recovers', async () => {
    let releaseTx!: () => void;
    const txOpen = new Promise<void>((r) => (releaseTx = r));
    const tx = db.tx(async (q) => {
      await q.query('INSERT INTO t VALUES (1)');
      await txOpen;
      await q.query('INSERT INTO t VALUES (2)');
    });
    const locked = db.withLock(42, async () => {
      await new Promise((r) => setTimeout(r, 500));
      await db.query('SELECT 1');
    });
    const sleeping = db.query('SELECT pg_sleep(30)').then(() => null, (e: unknown) => e);
    const lost: Error[] = [];
    const held = await db.tryLock(43, (err) => lost.push(err));
    expect(held).not.toBeNull();
    // All four sessions must exist before they are ended (on a loaded machine a connect can lag): the pg_sleep one
    // would otherwise run its 30 s.
    const backends = async () => {
      const r = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()", [`svc-${process.pid}`]).catch(() => ({ rows: [{ n: 0 }] }));
      return r.rows[0].n;
    };
    await expect.poll(backends, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(4);
    await expect.poll(() => server.terminateBackends(`svc-${process.pid}`), { timeout: 10_000 }).toBeGreaterThan(0);
    releaseTx();
    await expect(tx).rejects.toThrow();
    expect(await sleeping).toMatchObject({ code: '57P01' });
    await locked.catch(() => {});
    await expect.poll(() => lost.length, { timeout: 10_000 }).toBe(1);
    expect(await held!.check()).toBe(false);
    await recovered(db);
    expect((await db.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 0 }]);
    // The lock went with its session: it can be taken again.
    const again = await db.tryLock(43);
    expect(again).not.toBeNull();
    await again!();
  }, 90_000);

  it('survives a Postgres restart with idle and checked-out connections', async () => {
    const held = await db.tryLock(44);
    await server.restart('immediate');
    await recovered(db);
    expect(await held!.check()).toBe(false);
    await held!();
    await db.tx((q) => q.query('INSERT INTO t VALUES (3)'));
    expect((await db.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 1 }]);
  });

  it('the scheduler drops leadership with its lock connection and one node takes it again', async () => {
    const log = createLogger('silent');
    const other = createPgDb(server.url, 3);
    const ctxOf = (d: Db) => ({ db: d, log }) as unknown as AppContext;
    const a = new Scheduler(ctxOf(db), 'a', 200);
    const b = new Scheduler(ctxOf(other), 'b', 200);
    let both = 0;
    const watch = setInterval(() => {
      if (a.isLeader && b.isLeader) both++;
    }, 10);
    try {
      a.start();
      await expect.poll(() => a.isLeader, { timeout: 10_000 }).toBe(true);
      b.start();
      // Cut only the leader's lock session: the other scheduler must take over, the first must step down.
      const c = await other.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(l.pid))::int AS n FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objid = $1 AND l.granted`,
        [LOCKS.scheduler],
      );
      expect(c.rows[0].n).toBe(1);
      await expect.poll(() => b.isLeader, { timeout: 20_000 }).toBe(true);
      expect(a.isLeader).toBe(false);
      // Now every session goes: exactly one of them leads again once Postgres is back.
      await server.restart('immediate');
      await expect.poll(() => Number(a.isLeader) + Number(b.isLeader), { timeout: 30_000, interval: 100 }).toBe(1);
      expect(both).toBe(0);
    } finally {
      clearInterval(watch);
      await a.stop();
      await b.stop();
      await other.close();
    }
  });
});
