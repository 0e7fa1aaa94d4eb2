/**
 * Opens everything a node needs: the database (a Postgres server or the embedded one under the data dir), migrations,
 * the counters (Redis or in-memory), the cache bus and the secret key.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CacheBus } from '../core/cache.ts';
import { HealthChecks } from '../core/health.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import type { AppContext } from '../core/context.ts';
import { MemoryCounters } from '../core/counters/memory-counters.ts';
import { RedisCounters } from '../core/counters/redis-counters.ts';
import type { Counters } from '../core/counters/counters.ts';
import { setCursorKey } from '../core/cursor.ts';
import type { Db } from '../core/db/db.ts';
import { createEmbeddedDb } from '../core/db/embedded-db.ts';
import { UPGRADE_ENV } from '../core/db/major-upgrade.ts';
import { migrate } from '../core/db/migrate.ts';
import { createPgDb } from '../core/db/pg-db.ts';
import { isTransientDbError } from '../core/db/transient-db-error.ts';
import type { Logger } from '../core/logger.ts';
import { deriveKey } from '../core/secret-box.ts';
import { NodeMetrics } from '../core/metrics/node-metrics.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MIGRATIONS_DIR = join(ROOT, 'migrations');

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * DATABASE_URL's server, or the embedded default: Postgres as a child process with its cluster under the data dir
 * (a PGlite directory of an earlier version is migrated on the way). If that child dies, the node cannot serve: it
 * exits, and its supervisor starts both again.
 */
export async function openDb(config: Config, log: Logger): Promise<Db> {
  if (config.databaseUrl) return createPgDb(config.databaseUrl);
  return createEmbeddedDb(config.dataDir, {
    log,
    migrationsDir: MIGRATIONS_DIR,
    upgradeFrom: process.env[UPGRADE_ENV] || undefined,
    onCrash: (code, lastLog) => {
      log.fatal({ code, postgres_log: lastLog }, 'the embedded database exited; stopping the node');
      process.exit(1);
    },
  });
}

/** On a single node without SVC_SECRET_KEY, a key is generated once into the data dir (mode 600). */
function secretKeyOf(config: Config): string {
  if (config.secretKey) return config.secretKey;
  const file = join(config.dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, key + '\n', { mode: 0o600 });
  return key;
}

export async function openContext(config: Config, log: Logger, opts: { clock?: Clock; db?: Db; counters?: Counters } = {}): Promise<AppContext> {
  const clock = opts.clock ?? systemClock;
  const db = opts.db ?? (await openDb(config, log));
  const applied = await untilReachable(() => migrate(db, MIGRATIONS_DIR), log);
  if (applied.length) log.info({ migrations: applied }, 'applied migrations');
  let counters = opts.counters;
  if (!counters) {
    if (config.redisUrl) {
      const r = new RedisCounters(config.redisUrl, config.redisPrefix);
      await r.ready();
      counters = r;
    } else counters = new MemoryCounters(clock);
  }
  const caches = new CacheBus(counters, (err) => log.warn({ err }, 'cache invalidation not published (Redis unreachable); nodes drop their caches when it is back'));
  await caches.start();
  const secret = secretKeyOf(config);
  setCursorKey(secret);
  return { config, db, counters, caches, log, clock, health: new HealthChecks(), secretKey: deriveKey(secret), version: packageVersion(),
    metrics: new NodeMetrics({ enabled: config.metrics, db }) };
}

/**
 * A node started while Postgres is down (a restart after a crash, a whole rack coming back) waits for it instead of
 * exiting, so a supervisor does not have to loop: the first attempt at once, then every 1-10 s with a log line.
 */
export async function untilReachable<T>(fn: () => Promise<T>, log: Logger, maxDelayMs = 10_000): Promise<T> {
  for (let attempt = 1, delay = 1000; ; attempt++, delay = Math.min(maxDelayMs, delay * 2)) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransientDbError(err)) throw err;
      log.warn({ err, attempt, retry_in_ms: delay }, 'the database is unreachable; waiting for it before starting');
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
