/** A second node (proxy unless told) on the same database and Redis prefix as a test server (needs DATABASE_URL and REDIS_URL). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Role } from '../../core/config.ts';
import { createLogger } from '../../core/logger.ts';
import { buildServer, type Server } from '../../server/build-server.ts';
import { openContext } from '../../server/open-context.ts';
import { ADMIN_TOKEN, SECRET_KEY, type TestServer } from './test-server.ts';

export async function startSecondNode(first: TestServer, role: Role = 'proxy', env: Record<string, string> = {}): Promise<Server> {
  if (!first.databaseUrl || !process.env.REDIS_URL) throw new Error('a second node needs DATABASE_URL and REDIS_URL');
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-'));
  const config = loadConfig({
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_SECRET_KEY: SECRET_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    // A node of its own: its own data directory (write journals), removed when it closes.
    SVC_DATA_DIR: dataDir,
    DATABASE_URL: first.databaseUrl,
    REDIS_URL: process.env.REDIS_URL,
    SVC_REDIS_PREFIX: first.redisPrefix,
    ...env,
  });
  const ctx = await openContext(config, createLogger(config.logLevel));
  const server = await buildServer(ctx, role);
  return {
    ...server,
    close: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
