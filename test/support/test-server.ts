/**
 * A whole svc node for integration tests: isolated database and counters, fixed admin token, any role, optionally
 * listening on a random 127.0.0.1 port (for real SDK clients). Use `inject` for plain API calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { systemClock, type Clock } from '../../core/clock.ts';
import { loadConfig, type Role } from '../../core/config.ts';
import type { Db } from '../../core/db/db.ts';
import { createLogger, type Logger } from '../../core/logger.ts';
import { buildServer, type Server } from '../../server/build-server.ts';
import { openContext } from '../../server/open-context.ts';
import { createTestCounters, createTestDatabase } from './test-db.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const SECRET_KEY = 'test-secret-key-0123456789abcdef0123456789';

export interface TestServer extends Server {
  /** http://127.0.0.1:port when started with listen: true. */
  url: string;
  db: Db;
  databaseUrl: string | undefined;
  redisPrefix: string;
  /** inject with the admin token unless headers.authorization is given (pass '' for none). */
  api(method: InjectOptions['method'], url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export async function startTestServer(opts: { role?: Role; clock?: Clock; listen?: boolean; env?: Record<string, string>; log?: Logger } = {}): Promise<TestServer> {
  const clock = opts.clock ?? systemClock;
  const tdb = await createTestDatabase();
  const { counters, prefix } = await createTestCounters(clock);
  // Each node its own data directory: its write journals are its own (core/writes/write-journal.ts).
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_SECRET_KEY: SECRET_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    ...(tdb.url ? { DATABASE_URL: tdb.url } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, SVC_REDIS_PREFIX: prefix } : {}),
    ...opts.env,
  });
  const log = opts.log ?? createLogger(config.logLevel);
  const ctx = await openContext(config, log, { clock, db: tdb.db, counters });
  const server = await buildServer(ctx, opts.role ?? 'all', { schedulerRetryMs: 200 });
  let url = '';
  if (opts.listen) {
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = server.app.server.address();
    url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    ctx.config.publicUrl = url;
  }
  return {
    ...server,
    url,
    db: tdb.db,
    databaseUrl: tdb.url,
    redisPrefix: prefix,
    api: (method, path, body, headers = {}) => {
      const h: Record<string, string> = { ...headers };
      if (h.authorization === undefined) h.authorization = `Bearer ${ADMIN_TOKEN}`;
      if (h.authorization === '') delete h.authorization;
      return server.app.inject({ method, url: path, headers: h, ...(body !== undefined ? { payload: body as InjectOptions['payload'] } : {}) });
    },
    close: async () => {
      await server.close();
      await tdb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
