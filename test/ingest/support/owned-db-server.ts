/**
 * A test node whose database outlives it: close() stops the node (drain included) but leaves the database open, so
 * that a test can look at what was written during the drain. dispose() then closes and drops the database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../core/config.ts';
import type { Db } from '../../../core/db/db.ts';
import { createLogger } from '../../../core/logger.ts';
import { systemClock } from '../../../core/clock.ts';
import { buildServer, type Server } from '../../../server/build-server.ts';
import { openContext } from '../../../server/open-context.ts';
import { createTestCounters, createTestDatabase } from '../../support/test-db.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../../support/test-server.ts';

export interface OwnedDbServer {
  server: Server;
  db: Db;
  dispose(): Promise<void>;
}

export async function startOwnedDbServer(env: Record<string, string> = {}): Promise<OwnedDbServer> {
  const tdb = await createTestDatabase();
  // Its own data directory: write journals of nodes in parallel test files must never mix.
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-'));
  const { counters, prefix } = await createTestCounters(systemClock);
  const config = loadConfig({
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_SECRET_KEY: SECRET_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    SVC_DATA_DIR: dataDir,
    ...(tdb.url ? { DATABASE_URL: tdb.url } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, SVC_REDIS_PREFIX: prefix } : {}),
    ...env,
  });
  const keepOpen: Db = { ...tdb.db, close: async () => {} };
  const ctx = await openContext(config, createLogger(config.logLevel), { db: keepOpen, counters });
  const server = await buildServer(ctx, 'all', { schedulerRetryMs: 200 });
  return {
    server,
    db: tdb.db,
    dispose: async () => {
      await tdb.db.close();
      await tdb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
