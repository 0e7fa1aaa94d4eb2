/**
 * Limits on Redis: one Lua script per team and month settles the calls that ended and checks and reserves the calls
 * that start (exchange(): one round trip for both, shared by every call of the team in a round of I/O), all on
 * Redis time. All keys of a team share the hash tag {team}, so a Redis Cluster keeps them in one slot, and every
 * script is given all the keys it touches (none is built inside a script: a cluster refuses that).
 *
 * Layout under `<prefix>lim:{team}:`:
 *   k:<key>:w                  hash: the key's request windows in buckets (bucket-window.ts): `s<second>` the calls
 *                              of each second of the last minute, `m<minute>` of each minute of the last day (only
 *                              while requests_per_day is set); `sn`/`mn` their totals, `so`/`mo` the oldest bucket
 *                              counted. Bounded (at most 60 + 1,440 fields) whatever the rate; kept while the key
 *                              has a request limit.
 *   k:<key>:m:<YYYY-MM>        hash: t = tokens spent, d = dollars spent
 *   t:m:<YYYY-MM>              hash: t = team tokens spent
 *   fl                         hash: what calls in flight reserved: `kt|<key>|<YYYY-MM>` / `kd|<key>|<YYYY-MM>` a
 *                              key's tokens / dollars, `tt|<YYYY-MM>` the team's tokens; a field is deleted when it
 *                              is back at zero. (One hash per team, not fields of the month hashes, so that releasing
 *                              an expired reservation of any key touches only keys the script was given.)
 *   res                        sorted set of reservations in flight, scored by expiry; the member carries what to
 *                              release: `<id>|<key>|<month>|<tokens>|<dollars>` (it is the reservation id callers
 *                              get back)
 * A script reads each hash it needs once and writes it back once, however many calls of the key it carries: a call
 * costs its reservation member (added by its reserve, removed by its settle) plus a share of its key's reads and
 * writes. Expired reservations (a node died mid-call) are released by the next script of the team. A settle whose
 * reservation already expired only adds the real usage. Numbers are written with 17 significant digits, which
 * give every double back exactly. (Before the `fl` hash, amounts in flight were the `it`/`id` fields of the month
 * hashes; a script that reads a month hash moves them, so nodes of both versions can run side by side.)
 */
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../counters/redis-client.ts';
import { EXCHANGE, MONTH_TTL_S } from './redis-exchange-script.ts';
import { DAY_WINDOW, DEFAULT_RESERVATION_TTL_MS, MINUTE_WINDOW, type Amount, type Exchanged, type LimitCode, type LimitStore, type KeyLimits, type LimitSubject, type RequestCounts, type Reservation, type ReserveResult, type Settlement, type Spend, type Totals } from './limit-store.ts';

const S = MINUTE_WINDOW;
const M = DAY_WINDOW;

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

/** A reserve's limits as the exchange script takes them, one text per key's limits and team limit (memoised). */
const limitsTexts = new WeakMap<KeyLimits, { team: number | undefined; text: string }>();
function limitsArg(s: LimitSubject): string {
  const known = limitsTexts.get(s.key);
  if (known && known.team === s.teamTokensPerMonth) return known.text;
  const k = s.key;
  const text = `${none(k.requestsPerMinute)}|${none(k.requestsPerDay)}|${none(k.tokensPerMonth)}|${none(k.dollarsPerMonth)}|${none(s.teamTokensPerMonth)}`;
  limitsTexts.set(s.key, { team: s.teamTokensPerMonth, text });
  return text;
}

type Script = (...a: (string | number)[]) => Promise<string[]>;

/** Reservation ids: this process's random prefix and a counter (unique across nodes, cheaper than a UUID). */
const ID_PREFIX = randomBytes(6).toString('hex');
let idSeq = 0;

export class RedisLimitStore implements LimitStore {
  #redis: RedisClient;
  #prefix: string;
  #losses = 0;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#redis.defineCommand('svcLimitExchange', { lua: EXCHANGE });
    this.#redis.defineCommand('svcLimitSeed', { numberOfKeys: 2, lua: SEED });
    this.#redis.defineCommand('svcLimitRequests', { numberOfKeys: 1, lua: REQUESTS });
    // A connection lost (one server's, or one cluster node's) may have lost the last writes with it.
    this.#redis.on('close', () => this.#losses++);
    this.#redis.on('-node', () => this.#losses++);
  }

  lossCount(): number {
    return this.#losses;
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
      // The batch's keys in order of first appearance: their index in KEYS and ARGV.
      const keyIds: string[] = [];
      const keyIndex = new Map<string, number>();
      const indexOf = (keyId: string) => {
        let j = keyIndex.get(keyId);
        if (j === undefined) keyIndex.set(keyId, (j = keyIds.push(keyId) - 1));
        return j;
      };
      const items: (string | number)[] = [];
      for (const i of settles) {
        const { subject: s, reservationId, actual } = settlements[i];
        items.push(indexOf(s.keyId), reservationId, Math.round(actual.tokens), actual.dollars);
      }
      const members: string[] = new Array(reserves.length);
      reserves.forEach((i, j) => {
        const { subject: s, estimate: est } = reservations[i];
        const tokens = Math.round(est.tokens);
        members[j] = `${ID_PREFIX}${(++idSeq).toString(36)}|${s.keyId}|${s.month}|${tokens}|${est.dollars}`;
        items.push(indexOf(s.keyId), limitsArg(s), tokens, est.dollars, members[j]);
      });
      const keys = [`${base}res`, `${base}fl`, `${base}t:m:${first.month}`, ...keyIds.flatMap((k) => [`${base}k:${k}:w`, `${base}k:${k}:m:${first.month}`])];
      const args = [first.month, ttlMs, settles.length, reserves.length, keyIds.length, ...keyIds, ...items];
      const r = await this.#run('svcLimitExchange', keys.length, ...keys, ...args);
      const team = Number(r[2 * settles.length]);
      settles.forEach((i, j) => (totals[i] = { keyTokens: Number(r[2 * j]), keyDollars: Number(r[2 * j + 1]), teamTokens: team }));
      // Per reserve: 1 when admitted, else five values.
      let at = 2 * settles.length + 1;
      reserves.forEach((i, j) => {
        if (Number(r[at]) === 1) {
          results[i] = { ok: true, reservationId: members[j] };
          at += 1;
        } else {
          results[i] = { ok: false, code: r[at + 1] as LimitCode, limit: Number(r[at + 2]), used: Number(r[at + 3]), retryAfterMs: Number(r[at + 4]) };
          at += 5;
        }
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
    const [k, t, f] = await Promise.all([
      this.#redis.hmget(`${base}k:${keyId}:m:${month}`, 't', 'd', 'it', 'id'),
      this.#redis.hget(`${base}t:m:${month}`, 't'),
      this.#redis.hmget(`${base}fl`, `kt|${keyId}|${month}`, `kd|${keyId}|${month}`),
    ]);
    const n = (v: string | null | undefined) => Number(v ?? 0);
    // In flight: the in-flight hash plus what an older version left in the month hash (the next script moves it).
    return { keyTokens: n(k[0]), keyDollars: n(k[1]), teamTokens: n(t), keyTokensInFlight: Math.max(0, n(k[2]) + n(f[0])), keyDollarsInFlight: Math.max(0, n(k[3]) + n(f[1])) };
  }

  async requests(keyId: string, teamId: string, key: KeyLimits): Promise<RequestCounts> {
    // No request limit: the key has no windows (reserve keeps none), so there is nothing to count.
    if (key.requestsPerMinute === undefined && key.requestsPerDay === undefined) return { lastMinute: null, lastDay: null };
    const [minute, day] = await this.#run('svcLimitRequests', `${this.#base(teamId)}k:${keyId}:w`);
    // The day's window is kept only while requests_per_day is set.
    return { lastMinute: Number(minute), lastDay: key.requestsPerDay === undefined ? null : Number(day) };
  }
}
