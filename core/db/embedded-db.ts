/**
 * The embedded default (no DATABASE_URL): a real Postgres run by svc as a child process (core/db/child-postgres.ts)
 * with its cluster in `<data dir>/postgres`, reached over a Unix socket through the same pg pool as a Postgres
 * server (core/db/pg-db.ts). It serves one node only (several nodes need DATABASE_URL).
 *
 * Before it starts, two kinds of data directory are brought over by a logical copy (core/db/copy-database.ts):
 * - `<data dir>/pg`, written by PGlite (the embedded engine before this one): core/db/pglite-migration.ts;
 * - a cluster of an older major than the installed binaries: core/db/major-upgrade.ts, with the older binaries the
 *   operator names in SVC_EMBEDDED_UPGRADE_FROM; without them svc refuses to start and says what to run.
 */
import { join } from 'node:path';
import type { Logger } from '../logger.ts';
import { startChildPostgres } from './child-postgres.ts';
import type { Db } from './db.ts';
import { upgradeIfNeeded } from './major-upgrade.ts';
import { createPgDb } from './pg-db.ts';
import { migrateFromPgliteIfPresent } from './pglite-migration.ts';

export interface EmbeddedDbOptions {
  log: Logger;
  /** The directory of svc's migrations (the copies apply the same ones). */
  migrationsDir: string;
  /** The previous major's bin directory (initdb, postgres), for an upgrade across majors. */
  upgradeFrom?: string;
  /** Called if the database exits while svc runs (the node cannot serve without it). */
  onCrash?: (code: number | null, lastLog: string) => void;
}

/**
 * Connections of the node's pool. Each is a backend process of the child with its own memory (3 to 17 MB under the
 * embedded bench's ingest load); one node writes events one batch at a time here, so 5 are enough where a server gets 10.
 */
export const EMBEDDED_POOL_SIZE = 5;

export const postgresDir = (dataDir: string) => join(dataDir, 'postgres');

export async function createEmbeddedDb(dataDir: string, opts: EmbeddedDbOptions): Promise<Db> {
  const dir = postgresDir(dataDir);
  const progress = (msg: string) => opts.log.info(`embedded database: ${msg}`);
  await migrateFromPgliteIfPresent(dataDir, dir, opts.migrationsDir, progress);
  await upgradeIfNeeded(dir, opts.upgradeFrom, opts.migrationsDir, progress);
  const server = await startChildPostgres(dir, { log: progress });
  if (opts.onCrash) server.onUnexpectedExit(opts.onCrash);
  const db = createPgDb(server.url, EMBEDDED_POOL_SIZE);
  return {
    ...db,
    kind: 'embedded',
    async close() {
      await db.close();
      await server.stop();
    },
  };
}
