/**
 * A data directory written by the previous embedded engine (PGlite, `<data dir>/pg`) is migrated on the first start
 * of the child Postgres: the rows are written through svc itself (first-start admin, teams, projects, ingested
 * events and issues), then every row of every table is compared between the kept PGlite directory and the new
 * cluster, and sequences continue where they stood. An interrupted migration is started again from the start.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildPostgres } from '../../core/db/child-postgres.ts';
import { createEmbeddedDb, postgresDir } from '../../core/db/embedded-db.ts';
import { PGLITE_DIR, PGLITE_KEPT } from '../../core/db/pglite-migration.ts';
import { createPgliteDb } from '../../core/db/pglite-db.ts';
import { createLogger } from '../../core/logger.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { EVENTS, expectSameRows, writeRowsThroughSvc } from './support/write-rows.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-pglite-migration-'));
  dirs.push(d);
  return d;
}

/** What an earlier svc left: a node on PGlite under `<dir>/pg`, with rows written through its API. */
async function writeWithPglite(dir: string): Promise<void> {
  await writeRowsThroughSvc(dir, await createPgliteDb(join(dir, PGLITE_DIR)));
}

describe('migrating a PGlite data directory to the child Postgres', () => {
  it('copies every row of every table, keeps the PGlite directory renamed, and sequences go on from where they were', async () => {
    const dir = dataDir();
    await writeWithPglite(dir);
    const lines: string[] = [];
    const log = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l).msg) });
    const db = await createEmbeddedDb(dir, { log, migrationsDir: MIGRATIONS_DIR });
    const old = await createPgliteDb(join(dir, PGLITE_KEPT));
    try {
      expect(existsSync(join(dir, PGLITE_DIR))).toBe(false);
      expect(lines.join('\n')).toMatch(/found a PGlite database[\s\S]*copied public\.events: 6 rows[\s\S]*every count matches[\s\S]*kept as/);
      expect(await expectSameRows(old, db)).toBeGreaterThan(20);
      // Sequences: the next id continues after the copied ones.
      const seqs = (await old.query<{ name: string; last_value: number }>(`SELECT format('%I.%I', schemaname, sequencename) AS name, last_value FROM pg_sequences WHERE last_value IS NOT NULL`)).rows;
      expect(seqs.length).toBeGreaterThan(0);
      for (const s of seqs) {
        const next = await db.query<{ v: number }>('SELECT nextval($1::regclass) AS v', [s.name]);
        expect(Number(next.rows[0].v), s.name).toBe(Number(s.last_value) + 1);
      }
    } finally {
      await old.close();
      await db.close();
    }
    // The next start uses the new cluster as it is.
    const again = await createEmbeddedDb(dir, { log: createLogger('silent'), migrationsDir: MIGRATIONS_DIR });
    expect((await again.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0].n).toBe(EVENTS);
    await again.close();
  });

  it('discards the partial cluster of an interrupted migration and migrates again', async () => {
    const dir = dataDir();
    await writeWithPglite(dir);
    // An interrupted run: the marker and a cluster holding part of the data.
    const partial = await startChildPostgres(postgresDir(dir));
    await partial.stop();
    writeFileSync(join(postgresDir(dir), 'migrating-from-pglite'), '');
    const db = await createEmbeddedDb(dir, { log: createLogger('silent'), migrationsDir: MIGRATIONS_DIR });
    try {
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0].n).toBe(EVENTS);
      expect(existsSync(join(postgresDir(dir), 'migrating-from-pglite'))).toBe(false);
      expect(existsSync(join(dir, PGLITE_KEPT))).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('refuses a data dir holding a PGlite database beside a cluster that was not migrated from it', async () => {
    const dir = dataDir();
    await writeWithPglite(dir);
    const other = await startChildPostgres(postgresDir(dir));
    await other.stop();
    await expect(createEmbeddedDb(dir, { log: createLogger('silent'), migrationsDir: MIGRATIONS_DIR })).rejects.toMatchObject({ code: 'embedded_two_databases' });
    expect(existsSync(join(dir, PGLITE_DIR, 'PG_VERSION'))).toBe(true);
  });
});
