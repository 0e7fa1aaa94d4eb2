/**
 * Counters on Redis (one server or a Redis Cluster, redis-client.ts): atomic Lua scripts on Redis time, so every
 * proxy node shares one exact window. One connection for commands, one for subscriptions (a subscribed connection
 * can issue nothing else). Every command and script names exactly one key, so each runs on a cluster as is.
 *
 * A Redis restart or failover is routine: both connections reconnect forever with a capped, jittered backoff and
 * never end the process. While the command connection is down, commands fail at once (no offline queue) so callers
 * decide (budgets fail closed, the sign-in throttle fails open). The subscription connection re-subscribes by itself
 * after a reconnect (messages published meanwhile are lost; see core/cache.ts for what bounds that).
 */
import { randomUUID } from 'node:crypto';
import type { Counters, HitResult, HitsResult } from './counters.ts';
import { openRedis, type ConnectionOptions, type RedisClient } from './redis-client.ts';
import { parseRedisUrl, type RedisTarget } from './redis-url.ts';

// Sliding-window log: members are unique per hit, scored by Redis time in ms. Both scripts start by dropping the hits
// that left the window (ARGV[2] ms) and counting the rest.
const TRIM_WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])`;

const HIT = `${TRIM_WINDOW}
if count >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, count, tonumber(oldest[2]) + window - now}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return {1, count + 1, 0}`;

// The same for ARGV[4] hits at once: as many as the window has room for, members ARGV[3]:1, ARGV[3]:2…
const HIT_MANY = `${TRIM_WINDOW}
local n = tonumber(ARGV[4])
local take = math.max(0, math.min(n, tonumber(ARGV[1]) - count))
for i = 1, take do redis.call('ZADD', KEYS[1], now, ARGV[3] .. ':' .. i) end
if take > 0 then redis.call('PEXPIRE', KEYS[1], window) end
local retry = 0
if take < n then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  retry = oldest[2] and (tonumber(oldest[2]) + window - now) or window
end
return {take, count + take, retry}`;

const INCR = `
local v = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
if tonumber(ARGV[2]) > 0 and redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return v`;

const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

interface Scripts {
  svcHit(key: string, limit: number, windowMs: number, member: string): Promise<number[]>;
  svcHitMany(key: string, limit: number, windowMs: number, member: string, n: number): Promise<number[]>;
  svcIncr(key: string, by: number, ttlMs: number): Promise<string>;
}

export class RedisCounters implements Counters {
  readonly kind = 'redis' as const;
  readonly redis: RedisClient;
  readonly prefix: string;
  #target: RedisTarget;
  #sub: RedisClient | undefined;
  #handlers = new Map<string, Set<(m: string) => void>>();

  constructor(url: string, prefix: string) {
    this.#target = parseRedisUrl(url);
    this.prefix = prefix;
    this.redis = openRedis(this.#target, { kind: 'command' });
    this.redis.on('error', () => {});
    // Defined commands run by EVALSHA (the script body is sent once, not with every call as EVAL does).
    this.redis.defineCommand('svcHit', { numberOfKeys: 1, lua: HIT });
    this.redis.defineCommand('svcHitMany', { numberOfKeys: 1, lua: HIT_MANY });
    this.redis.defineCommand('svcIncr', { numberOfKeys: 1, lua: INCR });
  }

  /** Another connection to the same Redis (the limit store has its own, with a command timeout). */
  connect(opts: ConnectionOptions): RedisClient {
    return openRedis(this.#target, opts);
  }

  #scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }

  async ready(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      this.redis.once('ready', resolve);
      this.redis.once('end', () => reject(new Error('Redis connection ended')));
    });
  }

  async time(): Promise<number> {
    const [s, us] = await this.redis.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  }

  async hit(key: string, limit: number, windowMs: number): Promise<HitResult> {
    const [ok, count, retry] = await this.#scripts().svcHit(this.prefix + key, limit, windowMs, randomUUID());
    return { allowed: ok === 1, count, retryAfterMs: Math.max(ok === 1 ? 0 : 1, retry) };
  }

  async hitMany(key: string, limit: number, windowMs: number, n: number): Promise<HitsResult> {
    const [allowed, count, retry] = await this.#scripts().svcHitMany(this.prefix + key, limit, windowMs, randomUUID(), n);
    return { allowed, count, retryAfterMs: allowed === n ? 0 : Math.max(1, retry) };
  }

  async incrBy(key: string, by: number, ttlMs = 0): Promise<number> {
    return Number(await this.#scripts().svcIncr(this.prefix + key, by, ttlMs));
  }

  async get(key: string): Promise<number> {
    return Number((await this.redis.get(this.prefix + key)) ?? 0);
  }

  async setValue(key: string, value: string, ttlMs?: number, onlyIfAbsent = false): Promise<boolean> {
    const k = this.prefix + key;
    let r: string | null;
    if (ttlMs && onlyIfAbsent) r = await this.redis.set(k, value, 'PX', ttlMs, 'NX');
    else if (ttlMs) r = await this.redis.set(k, value, 'PX', ttlMs);
    else if (onlyIfAbsent) r = await this.redis.set(k, value, 'NX');
    else r = await this.redis.set(k, value);
    return r === 'OK';
  }

  async getValue(key: string): Promise<string | null> {
    return this.redis.get(this.prefix + key);
  }

  async del(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async lock(key: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    const token = randomUUID();
    if (!(await this.setValue(key, token, ttlMs, true))) return null;
    return async () => {
      await this.redis.eval(UNLOCK, 1, this.prefix + key, token);
    };
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.redis.publish(this.prefix + channel, message);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    if (!this.#sub) {
      const sub = openRedis(this.#target, { kind: 'subscriber' });
      this.#sub = sub;
      sub.on('error', () => {});
      this.#sub.on('message', (ch: string, msg: string) => {
        for (const h of this.#handlers.get(ch) ?? []) h(msg);
      });
    }
    const full = this.prefix + channel;
    const set = this.#handlers.get(full) ?? new Set();
    if (set.size === 0) await this.#sub.subscribe(full);
    set.add(handler);
    this.#handlers.set(full, set);
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.#sub?.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
