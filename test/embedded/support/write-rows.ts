/**
 * Rows written the way a running node writes them, for the embedded database's migration and upgrade tests: the
 * first-start administrator, two teams with a project each, and three ingested events per project (issues, hourly
 * counts, outcomes), through the API of a node on the given database. Closes the database when done.
 */
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import { loadConfig } from '../../../core/config.ts';
import type { Db } from '../../../core/db/db.ts';
import { createLogger } from '../../../core/logger.ts';
import { bootstrapAdmin } from '../../../control-plane/identity/bootstrap-admin.ts';
import { buildServer } from '../../../server/build-server.ts';
import { openContext } from '../../../server/open-context.ts';
import { createProject, eventEnvelope, post, randomEventId, sentryAuth, waitFor } from '../../ingest/support/ingest-helpers.ts';
import { ADMIN_TOKEN, SECRET_KEY, type TestServer } from '../../support/test-server.ts';

export const EVENTS = 6;

export async function writeRowsThroughSvc(dataDir: string, db: Db): Promise<void> {
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', PORT: '0' });
  const ctx = await openContext(config, createLogger('silent'), { db });
  expect(await bootstrapAdmin(ctx)).not.toBeNull();
  const server = await buildServer(ctx, 'all');
  const s = {
    ...server,
    db,
    api: (method: InjectOptions['method'], url: string, body?: unknown, headers: Record<string, string> = {}) =>
      server.app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers }, ...(body !== undefined ? { payload: body as InjectOptions['payload'] } : {}) }),
  } as unknown as TestServer;
  for (let p = 0; p < 2; p++) {
    const project = await createProject(s);
    for (let i = 0; i < EVENTS / 2; i++) {
      const event = { message: `héllo ${p}/${i} ✓`, level: 'error', extra: { n: i, nested: [1.5, null, 'x'] } };
      const res = await post(s, `/api/${project.id}/envelope/`, eventEnvelope(event, { event_id: randomEventId() }), sentryAuth(project.publicKey));
      expect(res.statusCode, res.body).toBe(200);
    }
    await waitFor(async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [project.id])).rows[0].n === EVENTS / 2);
  }
  await server.close(); // closes the database too
}

/** The tables holding rows (partitions through their parent), by qualified name. */
export async function tableNames(db: Db): Promise<string[]> {
  const r = await db.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname = 'public' ORDER BY 1`,
  );
  return r.rows.map((x) => x.name);
}

/** Every row of a table in its text form, sorted (time zone fixed, so two servers print the same text). */
export async function everyRow(db: Db, table: string): Promise<string[]> {
  return db.tx(async (q) => {
    await q.exec("SET LOCAL TimeZone = 'UTC'");
    return (await q.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t ORDER BY 1`)).rows.map((r) => r.row);
  });
}

/** Compares every row of every table; returns how many rows were compared. */
export async function expectSameRows(from: Db, to: Db): Promise<number> {
  const tables = await tableNames(from);
  expect(await tableNames(to)).toEqual(tables);
  expect(tables).toContain('public.events');
  let rows = 0;
  for (const t of tables) {
    const a = await everyRow(from, t);
    expect(await everyRow(to, t), t).toEqual(a);
    rows += a.length;
  }
  return rows;
}
