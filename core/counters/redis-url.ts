/**
 * What REDIS_URL names: one Redis server, or a Redis Cluster through some of its nodes (seeds; the client learns
 * the others from them). Three forms (docs/deployment.md#redis-cluster):
 *
 *   redis://[user:password@]host:port[/db]                   one server (rediss:// for TLS)
 *   redis-cluster://[user:password@]host:port,host:port,…    a cluster (rediss-cluster:// for TLS)
 *   redis://host:port,redis://host:port,…                    a cluster, as a list of seed URLs
 *
 * A cluster has only database 0, so a cluster URL names none. Parsing needs no connection: config validation uses
 * it at start.
 */
export interface RedisNode {
  host: string;
  port: number;
}

export type RedisTarget =
  | { cluster: false; url: string }
  | { cluster: true; nodes: RedisNode[]; username: string | undefined; password: string | undefined; tls: boolean };

const CLUSTER_SCHEMES: Record<string, boolean> = { 'redis-cluster:': false, 'rediss-cluster:': true };
const SERVER_SCHEMES: Record<string, boolean> = { 'redis:': false, 'rediss:': true };
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?$/;

/** Parses REDIS_URL; throws an Error whose message says what is wrong (config names the variable). */
export function parseRedisUrl(raw: string): RedisTarget {
  const scheme = /^([a-z-]+:)\/\//.exec(raw)?.[1];
  if (scheme !== undefined && scheme in CLUSTER_SCHEMES) {
    const rest = raw.slice(scheme.length + 2);
    const at = rest.lastIndexOf('@');
    const [hosts, ...path] = (at < 0 ? rest : rest.slice(at + 1)).split('/');
    const list = hosts.split(',');
    if (list.some((h) => !HOST_PORT.test(h))) throw new Error('must list a cluster\'s seeds as host:port,host:port (redis-cluster://host:port,host:port)');
    // One URL per seed so that each is checked the way a single server's URL is.
    const seeds = list.map((h) => seedOf(`redis://${at < 0 ? '' : rest.slice(0, at + 1)}${h}${path.length ? `/${path.join('/')}` : ''}`));
    return clusterOf(seeds, CLUSTER_SCHEMES[scheme]);
  }
  const parts = raw.split(',');
  if (parts.length === 1) {
    const u = urlOf(raw);
    if (!(u.protocol in SERVER_SCHEMES)) throw new Error('must use redis://, rediss://, redis-cluster:// or rediss-cluster://');
    return { cluster: false, url: raw };
  }
  const seeds = parts.map((p) => seedOf(p.trim()));
  const tls = new Set(seeds.map((s) => s.tls));
  if (tls.size > 1) throw new Error('must list seeds that all use redis:// or all use rediss://');
  return clusterOf(seeds, seeds[0].tls);
}

interface Seed extends RedisNode {
  username: string | undefined;
  password: string | undefined;
  tls: boolean;
}

function urlOf(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new Error('must be a URL (redis://host:port, or redis-cluster://host:port,host:port for a Redis Cluster)');
  }
}

function seedOf(raw: string): Seed {
  const u = urlOf(raw);
  if (!(u.protocol in SERVER_SCHEMES)) throw new Error('must list seeds as redis://host:port or rediss://host:port');
  if (!u.hostname) throw new Error('must name a host for every seed');
  if (u.pathname !== '' && u.pathname !== '/' && u.pathname !== '/0') throw new Error('must not name a database for a Redis Cluster (it has only database 0)');
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    tls: SERVER_SCHEMES[u.protocol],
  };
}

function clusterOf(seeds: Seed[], tls: boolean): RedisTarget {
  const withAuth = seeds.find((s) => s.username !== undefined || s.password !== undefined);
  return { cluster: true, nodes: seeds.map(({ host, port }) => ({ host, port })), username: withAuth?.username, password: withAuth?.password, tls };
}
