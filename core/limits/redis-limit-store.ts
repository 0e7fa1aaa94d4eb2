/**
 * Limits on Redis: one Lua script checks every limit and reserves (one round trip), one settles (one round trip;
 * settleMany settles several calls of one team in one script), all on Redis time. All keys of a team share the
 * hash tag {team}, so a Redis Cluster keeps them in one slot.
 *
 * Layout under `<prefix>lim:{team}:`:
 *   k:<key>:log                sorted set, one member per admitted call scored by its Redis time: the sliding window
 *                              of requests per day (when set; else of requests per minute), the minute counted in it
 *   k:<key>:m:<YYYY-MM>        hash: t = tokens spent, d = dollars spent, it / id = tokens / dollars in flight
 *   t:m:<YYYY-MM>              hash: t = team tokens spent, it = team tokens in flight
 *                              (tokens are whole numbers, HINCRBY; dollars HINCRBYFLOAT)
 *   res                        sorted set of reservations scored by expiry; the member carries what to release:
 *                              `<uuid>|<key>|<month>|<tokens>|<dollars>` (it is the reservation id callers get back)
 * Expired reservations (a node died mid-call) are released by the next reserve of the team. A settle whose
 * reservation already expired only adds the real usage.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DEFAULT_RESERVATION_TTL_MS, type Amount, type LimitCode, type LimitStore, type KeyLimits, type LimitSubject, type RequestCounts, type Reservation, type ReserveResult, type Settlement, type Spend, type Totals } from './limit-store.ts';

const MONTH_TTL_S = 40 * 86400;

// Releases a reservation member (in-flight figures back) if it is still there; `base` is `<prefix>lim:{team}:`.
const RELEASE = `
local function release(base, member)
  if redis.call('ZREM', base .. 'res', member) == 0 then return end
  local _, key, month, tok, dol = string.match(member, '^(.-)|(.-)|(.-)|(.-)|(.-)$')
  local km = base .. 'k:' .. key .. ':m:' .. month
  redis.call('HINCRBY', km, 'it', -tonumber(tok))
  redis.call('HINCRBYFLOAT', km, 'id', -tonumber(dol))
  redis.call('HINCRBY', base .. 't:m:' .. month, 'it', -tonumber(tok))
end
`;

// Reserves for n calls of one team and month, in order (a call sees the reservations of the calls before it).
// KEYS: 1 reservations zset, 2 team month hash, then per call: its key's call log (zset), its key's month hash.
// ARGV: base, ttl ms, then per call 8 values: rpm, rpd, tokens, dollars, team tokens (-1 = none), est tokens,
// est dollars, reservation member. Returns 5 values per call: {1, member, '', '', ''} or {0, code, limit, used,
// retry ms}.
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
${RELEASE}
local base, ttl = ARGV[1], tonumber(ARGV[2])
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 100)) do release(base, m) end
local out = {}
local function push(a, b, c, d, e) out[#out + 1] = a; out[#out + 1] = b; out[#out + 1] = c; out[#out + 1] = d; out[#out + 1] = e end
local tm = redis.call('HMGET', KEYS[2], 't', 'it')
local tt, tit = tonumber(tm[1] or '0'), tonumber(tm[2] or '0')
local teamNew = not tm[1] and not tm[2]
for i = 0, (#KEYS - 2) / 2 - 1 do
  local log, km, a = KEYS[3 + 2 * i], KEYS[4 + 2 * i], 3 + 8 * i
  local rpmL, rpdL, tokL, dolL, teamL = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local estT, estD, member = tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6]), ARGV[a + 7]
  local refused = false
  local function refuse(code, limit, used, retry)
    push(0, code, tostring(limit), tostring(used), tostring(retry))
    refused = true
  end
  -- One sliding log of admitted calls per key: it spans a day when requests_per_day is set, else a minute; the
  -- minute's count is a range count inside it. Entries with a score > now - span are inside the window.
  local span = rpdL >= 0 and 86400000 or 60000
  local function oldest(from, within)
    local o = redis.call('ZRANGEBYSCORE', log, from, '+inf', 'LIMIT', 0, 1, 'WITHSCORES')
    return math.max(1, (tonumber(o[2]) or now) + within - now)
  end
  if rpmL >= 0 or rpdL >= 0 then
    redis.call('ZREMRANGEBYSCORE', log, '-inf', now - span)
    if rpmL >= 0 then
      local from = '(' .. (now - 60000)
      local c = span == 60000 and redis.call('ZCARD', log) or redis.call('ZCOUNT', log, from, '+inf')
      if c >= rpmL then refuse('key_requests_per_minute', rpmL, c, oldest(from, 60000)) end
    end
    if not refused and rpdL >= 0 then
      local c = redis.call('ZCARD', log)
      if c >= rpdL then refuse('key_requests_per_day', rpdL, c, oldest('-inf', 86400000)) end
    end
  end
  local k
  if not refused then
    k = redis.call('HMGET', km, 't', 'd', 'it', 'id')
    local kt, kd, kit, kid = tonumber(k[1] or '0'), tonumber(k[2] or '0'), tonumber(k[3] or '0'), tonumber(k[4] or '0')
    if tokL >= 0 and kt + kit + estT > tokL then refuse('key_tokens_per_month', tokL, kt, 0)
    elseif dolL >= 0 and kd + kid + estD > dolL then refuse('key_dollars_per_month', dolL, kd, 0)
    elseif teamL >= 0 and tt + tit + estT > teamL then refuse('team_ai_tokens', teamL, tt, 0) end
  end
  if not refused then
    if rpmL >= 0 or rpdL >= 0 then
      -- A log lives as long as its newest entry; its expiry is pushed out only when less than half of it is left.
      redis.call('ZADD', log, now, member)
      if redis.call('PTTL', log) < span / 2 then redis.call('PEXPIRE', log, span) end
    end
    redis.call('HINCRBY', km, 'it', estT)
    redis.call('HINCRBYFLOAT', km, 'id', estD)
    redis.call('HINCRBY', KEYS[2], 'it', estT)
    tit = tit + estT
    -- A month hash gets its expiry with its first settle; set it here only while it has none.
    if not k[1] and not k[3] then redis.call('EXPIRE', km, ${MONTH_TTL_S}) end
    if teamNew then redis.call('EXPIRE', KEYS[2], ${MONTH_TTL_S}); teamNew = false end
    redis.call('ZADD', KEYS[1], now + ttl, member)
    push(1, member, '', '', '')
  end
end
return out`;

// Settles n calls of one team and month. KEYS: 1 team month hash, 2..n+1 key month hashes.
// ARGV: base, then per call: reservation member ('' = none), tokens, dollars.
// Returns per call {key tokens, key dollars} and, last, the team tokens.
const SETTLE = `
${RELEASE}
local base = ARGV[1]
local out = {}
for i = 2, #KEYS do
  local a = 2 + (i - 2) * 3
  if ARGV[a] ~= '' then release(base, ARGV[a]) end
  local kt = redis.call('HINCRBY', KEYS[i], 't', ARGV[a + 1])
  local kd = redis.call('HINCRBYFLOAT', KEYS[i], 'd', ARGV[a + 2])
  redis.call('HINCRBY', KEYS[1], 't', ARGV[a + 1])
  redis.call('EXPIRE', KEYS[i], ${MONTH_TTL_S})
  out[#out + 1] = kt
  out[#out + 1] = kd
end
redis.call('EXPIRE', KEYS[1], ${MONTH_TTL_S})
out[#out + 1] = redis.call('HGET', KEYS[1], 't')
return out`;

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

// Read only: a key's admitted calls in the last minute and the last day, on Redis time. KEYS: 1 the key's call log.
const REQUESTS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {redis.call('ZCOUNT', KEYS[1], '(' .. (now - 60000), '+inf'), redis.call('ZCOUNT', KEYS[1], '(' .. (now - 86400000), '+inf')}`;

const none = (n: number | undefined) => (n === undefined ? -1 : n);

/** Indexes of the items by team and month: one script each (a script's keys must share the team's hash slot). */
function groupByTeamMonth(items: readonly { subject: LimitSubject }[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((it, i) => {
    const g = `${it.subject.teamId}\n${it.subject.month}`;
    const list = groups.get(g);
    if (list) list.push(i);
    else groups.set(g, [i]);
  });
  return groups;
}
type Script = (...a: (string | number)[]) => Promise<string[]>;

export class RedisLimitStore implements LimitStore {
  #redis: Redis;
  #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#redis.defineCommand('svcLimitReserve', { lua: RESERVE });
    this.#redis.defineCommand('svcLimitSeed', { numberOfKeys: 2, lua: SEED });
    this.#redis.defineCommand('svcLimitSettle', { lua: SETTLE });
    this.#redis.defineCommand('svcLimitRequests', { numberOfKeys: 1, lua: REQUESTS });
  }

  #run(name: string, ...args: (string | number)[]): Promise<string[]> {
    return ((this.#redis as unknown as Record<string, Script>)[name]).call(this.#redis, ...args);
  }

  #base(teamId: string): string {
    return `${this.#prefix}lim:{${teamId}}:`;
  }

  async reserve(s: LimitSubject, est: Amount, ttlMs = DEFAULT_RESERVATION_TTL_MS): Promise<ReserveResult> {
    return (await this.reserveMany([{ subject: s, estimate: est }], ttlMs))[0];
  }

  async reserveMany(items: readonly Reservation[], ttlMs = DEFAULT_RESERVATION_TTL_MS): Promise<ReserveResult[]> {
    const out: ReserveResult[] = new Array(items.length);
    await Promise.all([...groupByTeamMonth(items).values()].map(async (idx) => {
      const first = items[idx[0]].subject;
      const base = this.#base(first.teamId);
      const keys = [`${base}res`, `${base}t:m:${first.month}`];
      const args: (string | number)[] = [base, ttlMs];
      for (const i of idx) {
        const { subject: s, estimate: est } = items[i];
        const tokens = Math.round(est.tokens);
        keys.push(`${base}k:${s.keyId}:log`, `${base}k:${s.keyId}:m:${s.month}`);
        args.push(none(s.key.requestsPerMinute), none(s.key.requestsPerDay), none(s.key.tokensPerMonth), none(s.key.dollarsPerMonth), none(s.teamTokensPerMonth),
          tokens, est.dollars, `${randomUUID()}|${s.keyId}|${s.month}|${tokens}|${est.dollars}`);
      }
      const r = await this.#run('svcLimitReserve', keys.length, ...keys, ...args);
      idx.forEach((i, j) => {
        const f = r.slice(5 * j, 5 * j + 5);
        out[i] = Number(f[0]) === 1
          ? { ok: true, reservationId: String(f[1]) }
          : { ok: false, code: f[1] as LimitCode, limit: Number(f[2]), used: Number(f[3]), retryAfterMs: Number(f[4]) };
      });
    }));
    return out;
  }

  async settle(s: LimitSubject, reservationId: string, actual: Amount): Promise<Totals> {
    return (await this.settleMany([{ subject: s, reservationId, actual }]))[0];
  }

  async settleMany(items: readonly Settlement[]): Promise<Totals[]> {
    const out: Totals[] = new Array(items.length);
    await Promise.all([...groupByTeamMonth(items).values()].map(async (idx) => {
      const first = items[idx[0]].subject;
      const base = this.#base(first.teamId);
      const keys = [`${base}t:m:${first.month}`, ...idx.map((i) => `${base}k:${items[i].subject.keyId}:m:${first.month}`)];
      const args: (string | number)[] = [base];
      for (const i of idx) args.push(items[i].reservationId, Math.round(items[i].actual.tokens), items[i].actual.dollars);
      const r = await this.#run('svcLimitSettle', keys.length, ...keys, ...args);
      const team = Number(r[r.length - 1] ?? 0);
      idx.forEach((i, j) => (out[i] = { keyTokens: Number(r[2 * j]), keyDollars: Number(r[2 * j + 1]), teamTokens: team }));
    }));
    return out;
  }

  async ready(timeoutMs = 5000): Promise<boolean> {
    if (this.#redis.status === 'ready') return true;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#redis.once('ready', onReady);
    });
  }

  async seed(s: Pick<LimitSubject, 'keyId' | 'teamId' | 'month'>, key: Amount, teamTokens: number): Promise<void> {
    const base = this.#base(s.teamId);
    await this.#run('svcLimitSeed', `${base}k:${s.keyId}:m:${s.month}`, `${base}t:m:${s.month}`, Math.round(key.tokens), key.dollars, Math.round(teamTokens));
  }

  async spend(keyId: string, teamId: string, month: string): Promise<Spend> {
    const base = this.#base(teamId);
    const [k, t] = await Promise.all([this.#redis.hmget(`${base}k:${keyId}:m:${month}`, 't', 'd', 'it', 'id'), this.#redis.hget(`${base}t:m:${month}`, 't')]);
    const n = (v: string | null | undefined) => Number(v ?? 0);
    return { keyTokens: n(k[0]), keyDollars: n(k[1]), teamTokens: n(t), keyTokensInFlight: Math.max(0, n(k[2])), keyDollarsInFlight: Math.max(0, n(k[3])) };
  }

  async requests(keyId: string, teamId: string, key: KeyLimits): Promise<RequestCounts> {
    // No request limit: the key has no log (reserve writes none), so there is nothing to count.
    if (key.requestsPerMinute === undefined && key.requestsPerDay === undefined) return { lastMinute: null, lastDay: null };
    const [minute, day] = await this.#run('svcLimitRequests', `${this.#base(teamId)}k:${keyId}:log`);
    // The log spans a day only while requests_per_day is set (entries older than a minute are trimmed otherwise).
    return { lastMinute: Number(minute), lastDay: key.requestsPerDay === undefined ? null : Number(day) };
  }
}
