/**
 * Limits on Redis: one Lua script per team and month settles the calls that ended and checks and reserves the calls
 * that start (exchange(): one round trip for both, shared by every call of the team in a round of I/O), all on
 * Redis time. All keys of a team share the hash tag {team}, so a Redis Cluster keeps them in one slot.
 *
 * Layout under `<prefix>lim:{team}:`:
 *   k:<key>:w                  hash: the key's request windows in buckets (bucket-window.ts): `s<second>` the calls
 *                              of each second of the last minute, `m<minute>` of each minute of the last day (only
 *                              while requests_per_day is set); `sn`/`mn` their totals, `so`/`mo` the oldest bucket
 *                              counted. Bounded (at most 60 + 1,440 fields) whatever the rate; kept while the key
 *                              has a request limit.
 *   k:<key>:m:<YYYY-MM>        hash: t = tokens spent, d = dollars spent, it / id = tokens / dollars in flight
 *   t:m:<YYYY-MM>              hash: t = team tokens spent, it = team tokens in flight
 *   res                        sorted set of reservations in flight, scored by expiry; the member carries what to
 *                              release: `<id>|<key>|<month>|<tokens>|<dollars>` (it is the reservation id callers
 *                              get back)
 * A script reads each hash it needs once and writes it back once, however many calls of the key it carries: a call
 * costs its reservation member (added by its reserve, removed by its settle) plus a share of its key's reads and
 * writes. Expired reservations (a node died mid-call) are released by the next script of the team. A settle whose
 * reservation already expired only adds the real usage. Numbers are written with 17 significant digits, which
 * give every double back exactly.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DAY_WINDOW, DEFAULT_RESERVATION_TTL_MS, MINUTE_WINDOW, type Amount, type Exchanged, type LimitCode, type LimitStore, type KeyLimits, type LimitSubject, type RequestCounts, type Reservation, type ReserveResult, type Settlement, type Spend, type Totals } from './limit-store.ts';

const MONTH_TTL_S = 40 * 86400;
const S = MINUTE_WINDOW;
const M = DAY_WINDOW;

// Settles then reserves calls of one team and month, in order (a call sees the calls before it).
// KEYS: 1 reservations zset, 2 team month hash, then per key of the batch: its window hash, its month hash.
// ARGV: base, ttl ms, settles n, reserves n; per settle 4 values: key index (0-based), reservation member ('' =
// none), tokens, dollars; per reserve 9 values: key index, rpm, rpd, tokens, dollars, team tokens (-1 = none), est
// tokens, est dollars, reservation member. Returns per settle {key tokens, key dollars}, then the team tokens after
// the settles, then per reserve {1, member, '', '', ''} or {0, code, limit, used, retry ms}.
const EXCHANGE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local base, ttl, nS, nR = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local function F(x) return string.format('%.17g', x) end
local out = {}
local function push(...) for _, v in ipairs({...}) do out[#out + 1] = v end end

-- Month hashes (a key's or a team's), read once and written back once.
local hashes, order = {}, {}
local function hash(name)
  local h = hashes[name]
  if not h then
    local v = redis.call('HMGET', name, 't', 'd', 'it', 'id')
    h = { t = tonumber(v[1] or '0'), d = tonumber(v[2] or '0'), it = tonumber(v[3] or '0'), id = tonumber(v[4] or '0'), fresh = not v[1] and not v[3] }
    hashes[name] = h
    order[#order + 1] = name
  end
  return h
end
local function release(member)
  if redis.call('ZREM', KEYS[1], member) == 0 then return end
  local _, key, month, tok, dol = string.match(member, '^(.-)|(.-)|(.-)|(.-)|(.-)$')
  local k = hash(base .. 'k:' .. key .. ':m:' .. month)
  k.it = k.it - tonumber(tok)
  k.id = k.id - tonumber(dol)
  local tm = hash(base .. 't:m:' .. month)
  tm.it = tm.it - tonumber(tok)
end
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 100)) do release(m) end

-- Request windows, read once per key: w[p .. 'n'] calls counted, w[p .. 'o'] oldest bucket, w[p .. 'c'] calls
-- in the current bucket w[p .. 'b'] (p = 's' for the minute's seconds, 'm' for the day's minutes).
local SHAPE = { s = { ${S.bucketMs}, ${S.buckets} }, m = { ${M.bucketMs}, ${M.buckets} } }
local wins, worder = {}, {}
local function trim(name, w, p)
  local size, span = SHAPE[p][1], SHAPE[p][2]
  local cur = math.floor(now / size)
  local o = w[p .. 'o']
  if o == nil then
    w[p .. 'o'], w[p .. 'n'] = cur, 0
  elseif cur < o then
    cur = o -- the clock stepped back: count in the oldest bucket kept rather than uncount anything
  else
    local low = cur - span + 1
    if o < low then
      local f = {}
      for b = o, math.min(low - 1, o + span - 1) do f[#f + 1] = p .. b end
      if w[p .. 'n'] > 0 and low - o < span then
        local gone = 0
        for _, c in ipairs(redis.call('HMGET', name, unpack(f))) do gone = gone + tonumber(c or '0') end
        w[p .. 'n'] = w[p .. 'n'] - gone
      else
        w[p .. 'n'] = 0
      end
      redis.call('HDEL', name, unpack(f))
      w[p .. 'o'] = low
    end
  end
  if w[p .. 'b'] ~= cur then
    w[p .. 'b'] = cur
    w[p .. 'c'] = tonumber(redis.call('HGET', name, p .. cur) or '0')
  end
end
local function window(name, day)
  local w = wins[name]
  if not w then
    local v = redis.call('HMGET', name, 'so', 'sn', 'mo', 'mn')
    w = { so = tonumber(v[1]), sn = tonumber(v[2] or '0'), mo = tonumber(v[3]), mn = tonumber(v[4] or '0') }
    wins[name] = w
    worder[#worder + 1] = name
    trim(name, w, 's')
  end
  if day and not w.day then
    w.day = true
    trim(name, w, 'm')
  end
  return w
end
-- When the oldest counted call of a window leaves (whole milliseconds, at least 1).
local function retry(name, w, p)
  local size, span = SHAPE[p][1], SHAPE[p][2]
  local low, cur = w[p .. 'o'], w[p .. 'b']
  if low < cur then
    local f = {}
    for b = low, cur - 1 do f[#f + 1] = p .. b end
    local v = redis.call('HMGET', name, unpack(f))
    for i = 1, #v do
      if tonumber(v[i] or '0') > 0 then return math.max(1, (low + i - 1 + span) * size - now) end
    end
  end
  if w[p .. 'c'] > 0 then return math.max(1, (cur + span) * size - now) end
  return span * size
end

for i = 0, nS - 1 do
  local a = 5 + 4 * i
  local j, member = tonumber(ARGV[a]), ARGV[a + 1]
  if member ~= '' then release(member) end
  local k = hash(KEYS[4 + 2 * j])
  k.t = k.t + tonumber(ARGV[a + 2])
  k.d = k.d + tonumber(ARGV[a + 3])
  local tm = hash(KEYS[2])
  tm.t = tm.t + tonumber(ARGV[a + 2])
  push(F(k.t), F(k.d))
end
push(F(nS > 0 and hash(KEYS[2]).t or 0))

for i = 0, nR - 1 do
  local a = 5 + 4 * nS + 9 * i
  local j = tonumber(ARGV[a])
  local wk, km = KEYS[3 + 2 * j], KEYS[4 + 2 * j]
  local rpmL, rpdL, tokL, dolL, teamL = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
  local estT, estD, member = tonumber(ARGV[a + 6]), tonumber(ARGV[a + 7]), ARGV[a + 8]
  local refused = false
  local w
  if rpmL >= 0 or rpdL >= 0 then
    w = window(wk, rpdL >= 0)
    if rpmL >= 0 and w.sn >= rpmL then
      push(0, 'key_requests_per_minute', tostring(rpmL), tostring(w.sn), tostring(retry(wk, w, 's')))
      refused = true
    elseif rpdL >= 0 and w.mn >= rpdL then
      push(0, 'key_requests_per_day', tostring(rpdL), tostring(w.mn), tostring(retry(wk, w, 'm')))
      refused = true
    end
  end
  if not refused then
    local k, tm = hash(km), hash(KEYS[2])
    if tokL >= 0 and k.t + k.it + estT > tokL then push(0, 'key_tokens_per_month', tostring(tokL), F(k.t), '0'); refused = true
    elseif dolL >= 0 and k.d + k.id + estD > dolL then push(0, 'key_dollars_per_month', tostring(dolL), F(k.d), '0'); refused = true
    elseif teamL >= 0 and tm.t + tm.it + estT > teamL then push(0, 'team_ai_tokens', tostring(teamL), F(tm.t), '0'); refused = true end
    if not refused then
      if w then
        w.sn, w.sc = w.sn + 1, w.sc + 1
        if rpdL >= 0 then w.mn, w.mc = w.mn + 1, w.mc + 1 end
      end
      k.it, k.id, tm.it = k.it + estT, k.id + estD, tm.it + estT
      redis.call('ZADD', KEYS[1], now + ttl, member)
      push(1, member, '', '', '')
    end
  end
end

for _, name in ipairs(order) do
  local h = hashes[name]
  redis.call('HSET', name, 't', F(h.t), 'd', F(h.d), 'it', F(h.it), 'id', F(h.id))
  -- A month hash lives 40 days from its first write: longer than any month, without an EXPIRE per script.
  if h.fresh then redis.call('EXPIRE', name, ${MONTH_TTL_S}) end
end
for _, name in ipairs(worder) do
  local w = wins[name]
  if w.day then
    redis.call('HSET', name, 'so', w.so, 'sn', w.sn, 's' .. w.sb, w.sc, 'mo', w.mo, 'mn', w.mn, 'm' .. w.mb, w.mc)
    redis.call('PEXPIRE', name, ${M.bucketMs * M.buckets})
  else
    redis.call('HSET', name, 'so', w.so, 'sn', w.sn, 's' .. w.sb, w.sc)
    redis.call('PEXPIRE', name, ${S.bucketMs * S.buckets})
  end
end
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

// Read only: a key's admitted calls in the minute's and the day's windows, on Redis time. KEYS: 1 the key's
// window hash. Sums the buckets still inside each window (what a reserve at this time would count).
const REQUESTS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function count(p, size, span)
  local cur = math.floor(now / size)
  local o = tonumber(redis.call('HGET', KEYS[1], p .. 'o') or cur)
  if cur < o then cur = o end
  local f = {}
  for b = math.max(o, cur - span + 1), cur do f[#f + 1] = p .. b end
  local n = 0
  for _, c in ipairs(redis.call('HMGET', KEYS[1], unpack(f))) do n = n + tonumber(c or '0') end
  return n
end
return {count('s', ${S.bucketMs}, ${S.buckets}), count('m', ${M.bucketMs}, ${M.buckets})}`;

const none = (n: number | undefined) => (n === undefined ? -1 : n);

type Script = (...a: (string | number)[]) => Promise<string[]>;

/** Reservation ids: this process's random prefix and a counter (unique across nodes, cheaper than a UUID). */
const ID_PREFIX = randomBytes(6).toString('hex');
let idSeq = 0;

export class RedisLimitStore implements LimitStore {
  #redis: Redis;
  #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#redis.defineCommand('svcLimitExchange', { lua: EXCHANGE });
    this.#redis.defineCommand('svcLimitSeed', { numberOfKeys: 2, lua: SEED });
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
    return (await this.exchange([], items, ttlMs)).results;
  }

  async settle(s: LimitSubject, reservationId: string, actual: Amount): Promise<Totals> {
    return (await this.settleMany([{ subject: s, reservationId, actual }]))[0];
  }

  async settleMany(items: readonly Settlement[]): Promise<Totals[]> {
    return (await this.exchange(items, [])).totals;
  }

  async exchange(settlements: readonly Settlement[], reservations: readonly Reservation[], ttlMs = DEFAULT_RESERVATION_TTL_MS): Promise<Exchanged> {
    const totals: Totals[] = new Array(settlements.length);
    const results: ReserveResult[] = new Array(reservations.length);
    const groups = new Map<string, { settles: number[]; reserves: number[] }>();
    const group = (s: LimitSubject) => {
      const g = `${s.teamId}\n${s.month}`;
      let e = groups.get(g);
      if (!e) groups.set(g, (e = { settles: [], reserves: [] }));
      return e;
    };
    settlements.forEach((it, i) => group(it.subject).settles.push(i));
    reservations.forEach((it, i) => group(it.subject).reserves.push(i));
    await Promise.all([...groups.values()].map(async ({ settles, reserves }) => {
      const first = settles.length > 0 ? settlements[settles[0]].subject : reservations[reserves[0]].subject;
      const base = this.#base(first.teamId);
      const keys = [`${base}res`, `${base}t:m:${first.month}`];
      const keyIndex = new Map<string, number>();
      const indexOf = (keyId: string) => {
        let j = keyIndex.get(keyId);
        if (j === undefined) {
          keyIndex.set(keyId, (j = keyIndex.size));
          keys.push(`${base}k:${keyId}:w`, `${base}k:${keyId}:m:${first.month}`);
        }
        return j;
      };
      const args: (string | number)[] = [base, ttlMs, settles.length, reserves.length];
      for (const i of settles) {
        const { subject: s, reservationId, actual } = settlements[i];
        args.push(indexOf(s.keyId), reservationId, Math.round(actual.tokens), actual.dollars);
      }
      for (const i of reserves) {
        const { subject: s, estimate: est } = reservations[i];
        const tokens = Math.round(est.tokens);
        args.push(indexOf(s.keyId), none(s.key.requestsPerMinute), none(s.key.requestsPerDay), none(s.key.tokensPerMonth), none(s.key.dollarsPerMonth), none(s.teamTokensPerMonth),
          tokens, est.dollars, `${ID_PREFIX}${(++idSeq).toString(36)}|${s.keyId}|${s.month}|${tokens}|${est.dollars}`);
      }
      const r = await this.#run('svcLimitExchange', keys.length, ...keys, ...args);
      const team = Number(r[2 * settles.length]);
      settles.forEach((i, j) => (totals[i] = { keyTokens: Number(r[2 * j]), keyDollars: Number(r[2 * j + 1]), teamTokens: team }));
      const at = 2 * settles.length + 1;
      reserves.forEach((i, j) => {
        const f = r.slice(at + 5 * j, at + 5 * j + 5);
        results[i] = Number(f[0]) === 1
          ? { ok: true, reservationId: String(f[1]) }
          : { ok: false, code: f[1] as LimitCode, limit: Number(f[2]), used: Number(f[3]), retryAfterMs: Number(f[4]) };
      });
    }));
    return { totals, results };
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
    // No request limit: the key has no windows (reserve keeps none), so there is nothing to count.
    if (key.requestsPerMinute === undefined && key.requestsPerDay === undefined) return { lastMinute: null, lastDay: null };
    const [minute, day] = await this.#run('svcLimitRequests', `${this.#base(teamId)}k:${keyId}:w`);
    // The day's window is kept only while requests_per_day is set.
    return { lastMinute: Number(minute), lastDay: key.requestsPerDay === undefined ? null : Number(day) };
  }
}
