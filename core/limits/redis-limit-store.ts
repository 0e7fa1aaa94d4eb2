/**
 * Limits on Redis: one Lua script checks every limit and reserves (one round trip), one settles (one round trip),
 * both on Redis time. All keys of a team share the hash tag {team}, so a Redis Cluster keeps them in one slot.
 * Expired reservations are released by the next reserve of the team.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DEFAULT_RESERVATION_TTL_MS, type Amount, type LimitCode, type LimitStore, type LimitSubject, type ReserveResult, type Spend, type Totals } from './limit-store.ts';

const MONTH_TTL_S = 40 * 86400;

const RELEASE_EXPIRED = `
local function release(id)
  local v = redis.call('HGET', KEYS[6], id)
  if v then
    local km, tm, tok, dol = string.match(v, '^(.-)|(.-)|(.-)|(.-)$')
    redis.call('HINCRBYFLOAT', km, 'it', -tonumber(tok))
    redis.call('HINCRBYFLOAT', km, 'id', -tonumber(dol))
    redis.call('HINCRBYFLOAT', tm, 'it', -tonumber(tok))
    redis.call('HDEL', KEYS[6], id)
  end
  redis.call('ZREM', KEYS[5], id)
end
`;

// KEYS: 1 rpm zset, 2 rpd zset, 3 key month hash, 4 team month hash, 5 reservation expiries, 6 reservations
// ARGV: rpm, rpd, tokens, dollars, team tokens (-1 = none), est tokens, est dollars, reservation id, ttl ms
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
${RELEASE_EXPIRED}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now)) do release(id) end
local rpmL, rpdL, tokL, dolL, teamL = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local estT, estD, rid, ttl = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9])
local function window(key, limit, span, code)
  if limit < 0 then return nil end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - span)
  local c = redis.call('ZCARD', key)
  if c >= limit then
    local o = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    return {0, code, tostring(limit), tostring(c), tostring(math.max(1, (tonumber(o[2]) or now) + span - now))}
  end
  return nil
end
local r = window(KEYS[1], rpmL, 60000, 'key_requests_per_minute') or window(KEYS[2], rpdL, 86400000, 'key_requests_per_day')
if r then return r end
local function num(k, f) return tonumber(redis.call('HGET', k, f) or '0') end
local kt, kd, kit, kid = num(KEYS[3], 't'), num(KEYS[3], 'd'), num(KEYS[3], 'it'), num(KEYS[3], 'id')
if tokL >= 0 and kt + kit + estT > tokL then return {0, 'key_tokens_per_month', tostring(tokL), tostring(kt), '0'} end
if dolL >= 0 and kd + kid + estD > dolL then return {0, 'key_dollars_per_month', tostring(dolL), tostring(kd), '0'} end
local tt, tit = num(KEYS[4], 't'), num(KEYS[4], 'it')
if teamL >= 0 and tt + tit + estT > teamL then return {0, 'team_ai_tokens', tostring(teamL), tostring(tt), '0'} end
if rpmL >= 0 then redis.call('ZADD', KEYS[1], now, rid); redis.call('PEXPIRE', KEYS[1], 60000) end
if rpdL >= 0 then redis.call('ZADD', KEYS[2], now, rid); redis.call('PEXPIRE', KEYS[2], 86400000) end
redis.call('HINCRBYFLOAT', KEYS[3], 'it', estT)
redis.call('HINCRBYFLOAT', KEYS[3], 'id', estD)
redis.call('HINCRBYFLOAT', KEYS[4], 'it', estT)
redis.call('EXPIRE', KEYS[3], ${MONTH_TTL_S})
redis.call('EXPIRE', KEYS[4], ${MONTH_TTL_S})
redis.call('ZADD', KEYS[5], now + ttl, rid)
redis.call('HSET', KEYS[6], rid, KEYS[3] .. '|' .. KEYS[4] .. '|' .. ARGV[6] .. '|' .. ARGV[7])
return {1, rid}`;

// KEYS: 1-4 unused slots kept aligned with RESERVE, 5 reservation expiries, 6 reservations, 7 key month, 8 team month
// ARGV: reservation id, actual tokens, actual dollars
const SETTLE = `
${RELEASE_EXPIRED}
release(ARGV[1])
redis.call('HINCRBYFLOAT', KEYS[7], 't', ARGV[2])
redis.call('HINCRBYFLOAT', KEYS[7], 'd', ARGV[3])
redis.call('HINCRBYFLOAT', KEYS[8], 't', ARGV[2])
redis.call('EXPIRE', KEYS[7], ${MONTH_TTL_S})
redis.call('EXPIRE', KEYS[8], ${MONTH_TTL_S})
return {redis.call('HGET', KEYS[7], 't'), redis.call('HGET', KEYS[7], 'd'), redis.call('HGET', KEYS[8], 't')}`;

// KEYS: 1 key month, 2 team month. ARGV: key tokens, key dollars, team tokens. Raises, never lowers.
const SEED = `
local function atLeast(k, f, v)
  if tonumber(v) > tonumber(redis.call('HGET', k, f) or '0') then redis.call('HSET', k, f, v) end
end
atLeast(KEYS[1], 't', ARGV[1])
atLeast(KEYS[1], 'd', ARGV[2])
atLeast(KEYS[2], 't', ARGV[3])
redis.call('EXPIRE', KEYS[1], ${MONTH_TTL_S})
redis.call('EXPIRE', KEYS[2], ${MONTH_TTL_S})
return 1`;

const none = (n: number | undefined) => (n === undefined ? -1 : n);

export class RedisLimitStore implements LimitStore {
  #redis: Redis;
  #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#redis.defineCommand('svcReserve', { numberOfKeys: 6, lua: RESERVE });
    this.#redis.defineCommand('svcSettle', { numberOfKeys: 8, lua: SETTLE });
    this.#redis.defineCommand('svcSeed', { numberOfKeys: 2, lua: SEED });
  }

  #keys(keyId: string, teamId: string, month: string): string[] {
    const base = `${this.#prefix}lim:{${teamId}}`;
    return [`${base}:k:${keyId}:rpm`, `${base}:k:${keyId}:rpd`, `${base}:k:${keyId}:m:${month}`, `${base}:t:m:${month}`, `${base}:res`, `${base}:resv`];
  }

  async reserve(s: LimitSubject, est: Amount, ttlMs = DEFAULT_RESERVATION_TTL_MS): Promise<ReserveResult> {
    const run = (this.#redis as unknown as { svcReserve: (...a: (string | number)[]) => Promise<string[]> }).svcReserve;
    const r = await run.call(this.#redis, ...this.#keys(s.keyId, s.teamId, s.month),
      none(s.key.requestsPerMinute), none(s.key.requestsPerDay), none(s.key.tokensPerMonth), none(s.key.dollarsPerMonth), none(s.teamTokensPerMonth),
      est.tokens, est.dollars, randomUUID(), ttlMs);
    if (Number(r[0]) === 1) return { ok: true, reservationId: String(r[1]) };
    return { ok: false, code: r[1] as LimitCode, limit: Number(r[2]), used: Number(r[3]), retryAfterMs: Number(r[4]) };
  }

  async settle(s: LimitSubject, reservationId: string, actual: Amount): Promise<Totals> {
    const keys = this.#keys(s.keyId, s.teamId, s.month);
    const run = (this.#redis as unknown as { svcSettle: (...a: (string | number)[]) => Promise<string[]> }).svcSettle;
    const r = await run.call(this.#redis, ...keys, keys[2], keys[3], reservationId, actual.tokens, actual.dollars);
    return { keyTokens: Number(r[0] ?? 0), keyDollars: Number(r[1] ?? 0), teamTokens: Number(r[2] ?? 0) };
  }

  async seed(s: Pick<LimitSubject, 'keyId' | 'teamId' | 'month'>, key: Amount, teamTokens: number): Promise<void> {
    const [, , km, tm] = this.#keys(s.keyId, s.teamId, s.month);
    const run = (this.#redis as unknown as { svcSeed: (...a: (string | number)[]) => Promise<number> }).svcSeed;
    await run.call(this.#redis, km, tm, key.tokens, key.dollars, teamTokens);
  }

  async spend(keyId: string, teamId: string, month: string): Promise<Spend> {
    const [, , km, tm] = this.#keys(keyId, teamId, month);
    const [k, t] = await Promise.all([this.#redis.hgetall(km), this.#redis.hgetall(tm)]);
    const n = (v: string | undefined) => Number(v ?? 0);
    return { keyTokens: n(k.t), keyDollars: n(k.d), teamTokens: n(t.t), keyTokensInFlight: Math.max(0, n(k.it)), keyDollarsInFlight: Math.max(0, n(k.id)) };
  }
}
