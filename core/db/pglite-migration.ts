/**
 * A data directory written by an earlier svc, whose embedded database was PGlite (`<data dir>/pg`), is migrated to
 * the child Postgres on the first start: PGlite is opened, its database copied into a fresh cluster
 * (core/db/copy-database.ts: same migrations, every row, sequences), row counts compared table by table, and only
 * then is the PGlite directory renamed (never deleted) to `pg.pglite-before-postgres`. Progress goes to the log.
 *
 * A marker file in the new cluster's directory says the migration has not finished: a start after an interruption
 * (a crash, a kill) finds it with the PGlite directory still in place, discards the partial cluster and starts over.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasCluster, startChildPostgres } from './child-postgres.ts';
import { copyDatabase } from './copy-database.ts';
import { EmbeddedDbError } from './embedded-db-error.ts';
import { createPgDb } from './pg-db.ts';
import { createPgliteDb } from './pglite-db.ts';

export const PGLITE_DIR = 'pg';
export const PGLITE_KEPT = 'pg.pglite-before-postgres';
const MARKER = 'migrating-from-pglite';

export async function migrateFromPgliteIfPresent(dataDir: string, pgDir: string, migrationsDir: string, progress: (msg: string) => void): Promise<void> {
  const old = join(dataDir, PGLITE_DIR);
  const marker = join(pgDir, MARKER);
  if (!existsSync(join(old, 'PG_VERSION'))) {
    // Interrupted after the rename: the copy was verified, only the marker is left.
    rmSync(marker, { force: true });
    return;
  }
  if (hasCluster(pgDir)) {
    if (!existsSync(marker)) {
      throw new EmbeddedDbError('embedded_two_databases', `${dataDir} holds a PGlite database (${PGLITE_DIR}/) and a Postgres cluster (postgres/) that was not migrated from it; move one of them out of the directory.`);
    }
    progress('a migration from PGlite did not finish: discarding its partial copy and starting again');
  }
  if (existsSync(join(dataDir, PGLITE_KEPT))) {
    throw new EmbeddedDbError('embedded_two_databases', `${dataDir} holds both ${PGLITE_DIR}/ and ${PGLITE_KEPT}/ (an earlier migration); move one of them away before starting.`);
  }
  rmSync(pgDir, { recursive: true, force: true });
  mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  writeFileSync(marker, 'a migration from PGlite is under way; this cluster is incomplete until this file is gone\n');
  progress(`found a PGlite database in ${old}: migrating it to Postgres in ${pgDir} (the PGlite directory is kept)`);
  const t0 = Date.now();
  const source = await createPgliteDb(old);
  try {
    const server = await startChildPostgres(pgDir, { log: progress });
    const target = createPgDb(server.url, 2);
    try {
      await copyDatabase(source, target, migrationsDir, progress);
    } finally {
      await target.close();
      await server.stop();
    }
  } finally {
    await source.close();
  }
  renameSync(old, join(dataDir, PGLITE_KEPT));
  rmSync(marker, { force: true });
  progress(`migrated from PGlite in ${((Date.now() - t0) / 1000).toFixed(1)} s; the PGlite directory is kept as ${join(dataDir, PGLITE_KEPT)} (delete it once no longer needed)`);
}
