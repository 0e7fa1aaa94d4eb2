/** What every surface is given at start: configuration, storage, counters, the cache bus, logger and clock. */
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Counters } from './counters/counters.ts';
import type { Db } from './db/db.ts';
import type { CacheBus } from './cache.ts';
import type { HealthChecks } from './health.ts';
import type { Logger } from './logger.ts';
import type { NodeMetrics } from './metrics/node-metrics.ts';

export interface AppContext {
  config: Config;
  db: Db;
  counters: Counters;
  caches: CacheBus;
  log: Logger;
  clock: Clock;
  /** Named checks behind /api/v1/health and /healthz; features add theirs (core/health.ts). */
  health: HealthChecks;
  /** Encryption key for secrets at rest (32 bytes), derived from SVC_SECRET_KEY. */
  secretKey: Buffer;
  version: string;
  /** The node's metrics registry and the families surfaces feed (core/metrics/). */
  metrics: NodeMetrics;
}
