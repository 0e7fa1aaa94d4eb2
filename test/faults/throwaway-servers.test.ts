/** The throwaway Postgres and Redis the fault suite breaks: data survives a restart, backends can be cut by name. */
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.ts';
import { startThrowawayRedis, type ThrowawayRedis } from '../support/throwaway-redis.ts';

describe('throwaway servers', () => {
  let pgs: ThrowawayPostgres;
  let rs: ThrowawayRedis;
  beforeAll(async () => {
    [pgs, rs] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis()]);
  });
  afterAll(async () => {
    await Promise.all([pgs?.cleanup(), rs?.cleanup()]);
  });

  it('keeps Postgres data across a crash restart and terminates backends by application name', async () => {
    const a = new pg.Client({ connectionString: pgs.url, application_name: 'victim' });
    a.on('error', () => {});
    await a.connect();
    await a.query('CREATE TABLE t (v int)');
    await a.query('INSERT INTO t VALUES (1)');
    const b = new pg.Client({ connectionString: pgs.url, application_name: 'bystander' });
    await b.connect();
    expect(await pgs.terminateBackends('victim')).toBe(1);
    await expect(a.query('SELECT 1')).rejects.toThrow();
    expect((await b.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    await b.end().catch(() => {});
    await pgs.restart('immediate');
    const c = new pg.Client({ connectionString: pgs.url });
    await c.connect();
    expect((await c.query('SELECT v FROM t')).rows).toEqual([{ v: 1 }]);
    await c.end();
  });

  it('restarts Redis empty on the same port', async () => {
    const r = new Redis(rs.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    r.on('error', () => {});
    await r.connect();
    await r.set('k', 'v');
    await rs.restart();
    await expect.poll(async () => r.get('k').catch(() => 'down'), { timeout: 20_000, interval: 100 }).toBe(null);
    r.disconnect();
  });
});
