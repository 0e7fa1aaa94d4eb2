/**
 * Opens a connection to what REDIS_URL names (redis-url.ts): an ioredis `Redis` for one server, an ioredis
 * `Cluster` for a Redis Cluster. Both answer the same commands, scripts and pub/sub, so the rest of the code holds
 * a RedisClient and does not care which. On a cluster every command and script must keep its keys in one hash slot
 * (the limit store's keys share the tag `{team}`; every other command names one key).
 *
 * Two kinds of connection:
 * - `command`: fails at once while its server is unreachable (no offline queue, one retry) so callers decide
 *   (budgets fail closed, the sign-in throttle fails open); `commandTimeoutMs` bounds a command that gets no
 *   answer. On a cluster a command for a slot whose master is down fails after ioredis' redirections (about 1 s);
 *   the other slots keep working.
 * - `subscriber`: queues and retries until Redis is back (a subscribed connection issues nothing else).
 *
 * Both reconnect forever with `reconnectDelay`. Auto-pipelining (the commands of one event-loop turn in one socket
 * write) is on for one server and off for a cluster: ioredis sends a cluster's auto-pipelined writes as a pipeline
 * that does not follow MOVED/ASK redirections, so they would fail after a failover or during a slot migration until
 * the next refresh of its slot map (https://github.com/redis/ioredis/issues/2075); single commands follow them.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { parseRedisUrl, type RedisTarget } from './redis-url.ts';

export type RedisClient = Redis | Cluster;

export interface ConnectionOptions {
  kind: 'command' | 'subscriber';
  commandTimeoutMs?: number;
}

/** Reconnect forever: 100 ms doubling to 2 s, with jitter so the nodes of a fleet do not reconnect in step. */
export function reconnectDelay(attempt: number): number {
  return Math.round(Math.min(2000, 100 * 2 ** Math.min(attempt - 1, 5)) * (0.75 + Math.random() / 2));
}

export function openRedis(url: string | RedisTarget, opts: ConnectionOptions): RedisClient {
  const target = typeof url === 'string' ? parseRedisUrl(url) : url;
  const command = opts.kind === 'command';
  const perServer: RedisOptions = {
    maxRetriesPerRequest: command ? 1 : null,
    ...(opts.commandTimeoutMs ? { commandTimeout: opts.commandTimeoutMs } : {}),
  };
  if (!target.cluster) {
    return new Redis(target.url, { ...perServer, lazyConnect: false, retryStrategy: reconnectDelay, ...(command ? { enableOfflineQueue: false, enableAutoPipelining: true } : {}) });
  }
  return new Cluster(target.nodes, {
    clusterRetryStrategy: reconnectDelay,
    enableOfflineQueue: !command,
    enableAutoPipelining: false,
    redisOptions: { ...perServer, username: target.username, password: target.password, ...(target.tls ? { tls: {} } : {}) },
  });
}

export function isCluster(r: RedisClient): r is Cluster {
  return r instanceof Cluster;
}
