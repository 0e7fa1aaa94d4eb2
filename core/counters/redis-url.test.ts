import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { parseRedisUrl } from './redis-url.ts';

describe('REDIS_URL', () => {
  it('names one server with redis:// or rediss://, database and credentials left to the client', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({ cluster: false, url: 'redis://127.0.0.1:6379' });
    expect(parseRedisUrl('rediss://:pw@cache.internal:6380/2')).toEqual({ cluster: false, url: 'rediss://:pw@cache.internal:6380/2' });
  });

  it('names a cluster by redis-cluster:// and its seeds, with the credentials once', () => {
    expect(parseRedisUrl('redis-cluster://app:s%40cret@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002')).toEqual({
      cluster: true,
      nodes: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7001 }, { host: '::1', port: 7002 }],
      username: 'app', password: 's@cret', tls: false,
    });
    expect(parseRedisUrl('rediss-cluster://redis.internal')).toEqual({ cluster: true, nodes: [{ host: 'redis.internal', port: 6379 }], username: undefined, password: undefined, tls: true });
  });

  it('names a cluster by a list of seed URLs', () => {
    expect(parseRedisUrl('redis://:pw@10.0.0.1:7000, redis://10.0.0.2:7001')).toEqual({
      cluster: true, nodes: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7001 }], username: undefined, password: 'pw', tls: false,
    });
  });

  it('refuses what a cluster cannot be, and says why', () => {
    for (const [raw, why] of [
      ['http://127.0.0.1:6379', /must use redis:\/\//],
      ['redis-cluster://10.0.0.1:7000/3', /only database 0/],
      ['redis://10.0.0.1:7000,rediss://10.0.0.2:7001', /all use redis:\/\/ or all use rediss:\/\//],
      ['redis://10.0.0.1:7000,10.0.0.2:7001', /must be a URL/],
      ['redis-cluster://', /as host:port,host:port/],
      ['redis-cluster://10.0.0.1:7000,http://x', /as host:port,host:port/],
      ['redis-cluster://10.0.0.1:7000,', /as host:port,host:port/],
    ] as const) expect(() => parseRedisUrl(raw), raw).toThrow(why);
  });

  it('is checked when the configuration loads, naming the variable', () => {
    expect(loadConfig({ REDIS_URL: 'redis-cluster://127.0.0.1:7000,127.0.0.1:7001' }).redisUrl).toBe('redis-cluster://127.0.0.1:7000,127.0.0.1:7001');
    expect(() => loadConfig({ REDIS_URL: 'redis-cluster://127.0.0.1:7000/1' })).toThrow('Invalid configuration: REDIS_URL must not name a database for a Redis Cluster (it has only database 0)');
  });
});
