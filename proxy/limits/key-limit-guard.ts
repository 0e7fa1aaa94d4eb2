/**
 * The limits of gateway keys and teams, enforced on every proxy node alike (DESIGN.md §3 step 3, docs/limits.md).
 *
 * A call of a key with any limit (requests per minute or day, tokens or dollars per month) or of a team with
 * `ai.tokens` is metered: one atomic reserve in the limit store before the upstream call (Redis: one round trip,
 * all limits checked and the estimate reserved on Redis time), one settle after it (the reservation is replaced by
 * the real usage). Concurrent calls share those round trips, settles riding with reserves (limit-batcher.ts). Everything else needed is cached: the key's limits come with the
 * cached key record, the team's through a LookupCache on TEAM_LIMITS_CACHE, price overrides through PRICES_CACHE.
 * A call of an unmetered key touches no counters at all.
 *
 * Counters unreachable (Redis down): metered calls are refused with 503 `counters_unavailable` (fail closed: a
 * budget that cannot be checked is not spent); unmetered keys keep working. The month of a call is the calendar
 * month (UTC) of the shared clock (ServerTime).
 */
import type { AppContext } from '../../core/context.ts';
import { LookupCache } from '../../core/cache.ts';
import { PRICES_CACHE } from '../../core/ai/cache-names.ts';
import type { KeyLimits as StoredLimits } from '../../core/ai/key-limits.ts';
import { readPriceOverrides } from '../../core/ai/price-overrides.ts';
import type { PriceOverride } from '../../core/ai/price-of.ts';
import { isSvcError, svcError } from '../../core/errors.ts';
import { monthOf, msToNextMonth, type KeyLimits, type LimitStore, type LimitSubject, type ReserveResult } from '../../core/limits/limit-store.ts';
import type { ServerTime } from '../../core/limits/server-time.ts';
import { readTeamLimits, TEAM_LIMITS_CACHE, type TeamLimits } from '../../core/team-limits.ts';
import type { GatewayKey } from '../keys/key-store.ts';
import type { UsageRecord } from '../metering/usage-record.ts';
import type { BudgetAlerts } from './budget-alerts.ts';
import { callBodyOf } from './call-body-of.ts';
import type { CallBodyWriter } from './call-body-writer.ts';
import { estimateCall } from './call-estimate.ts';
import { limitRefusal, unpricedRefusal } from './limit-refusal.ts';
import type { AdmitRequest, CallAnswer, LimitGuard, LimitTicket } from './limit-guard.ts';
import type { LimitBatcher } from './limit-batcher.ts';
import { SeedSkipped, type SpendSeeder } from './spend-seeder.ts';

export interface KeyLimitGuardParts {
  store: LimitStore;
  time: ServerTime;
  seeder: SpendSeeder;
  alerts: BudgetAlerts;
  bodies: CallBodyWriter;
  /** Reserves and settles, batched per round of I/O (one exchange with the store). */
  batcher: LimitBatcher;
  /** A seed that takes longer is treated as counters down (503); the batcher bounds the reserve itself. */
  reserveTimeoutMs?: number;
}

const TEAM_LIMITS_TTL_MS = 5 * 60_000;
const NOTHING: LimitTicket = { settle: () => {} };

function storeLimits(l: StoredLimits): KeyLimits {
  const out: KeyLimits = {};
  if (l.requests_per_minute !== undefined) out.requestsPerMinute = l.requests_per_minute;
  if (l.requests_per_day !== undefined) out.requestsPerDay = l.requests_per_day;
  if (l.tokens_per_month !== undefined) out.tokensPerMonth = l.tokens_per_month;
  if (l.dollars_per_month !== undefined) out.dollarsPerMonth = l.dollars_per_month;
  return out;
}

const tokensOf = (r: UsageRecord) => r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;

function timeout(ms: number): { promise: Promise<never>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the counters did not answer within ${ms} ms`)), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

export class KeyLimitGuard implements LimitGuard {
  #ctx: AppContext;
  #p: KeyLimitGuardParts;
  #teams: LookupCache<TeamLimits>;
  #prices: LookupCache<readonly PriceOverride[]>;
  #limits = new WeakMap<GatewayKey, { limits: KeyLimits; tag: string }>();

  constructor(ctx: AppContext, parts: KeyLimitGuardParts) {
    this.#ctx = ctx;
    this.#p = parts;
    this.#teams = ctx.caches.register(new LookupCache<TeamLimits>(TEAM_LIMITS_CACHE, TEAM_LIMITS_TTL_MS));
    this.#prices = ctx.caches.register(new LookupCache<readonly PriceOverride[]>(PRICES_CACHE, 60_000));
  }

  /** The key's limits in the store's terms, with a tag that changes when they do (memoised per cached record). */
  #keyLimits(key: GatewayKey): { limits: KeyLimits; tag: string } {
    let l = this.#limits.get(key);
    if (!l) this.#limits.set(key, (l = { limits: storeLimits(key.limits), tag: JSON.stringify(key.limits) }));
    return l;
  }

  /** Synchronous for a key without limits whose team's limits are cached (no promise on the usual unmetered call). */
  admit(req: AdmitRequest): Promise<LimitTicket> | LimitTicket {
    const key = req.key;
    const team = this.#teams.peek(key.teamId);
    if (team === undefined) return this.#teams.get(key.teamId, (id) => readTeamLimits(this.#ctx.db, id)).then((t) => this.#admit(req, t));
    return this.#admit(req, team);
  }

  #admit(req: AdmitRequest, team: TeamLimits): Promise<LimitTicket> | LimitTicket {
    const key = req.key;
    const { limits, tag } = this.#keyLimits(key);
    const teamTokens = team['ai.tokens'];
    const metered = limits.requestsPerMinute !== undefined || limits.requestsPerDay !== undefined
      || limits.tokensPerMonth !== undefined || limits.dollarsPerMonth !== undefined || teamTokens !== undefined;
    if (!metered) {
      this.#p.seeder.forget(key.id, key.teamId, false);
      return key.logBodies === 'off' ? NOTHING : this.#ticket(req, undefined, '');
    }
    return this.#admitMetered(req, limits, tag, teamTokens);
  }

  async #admitMetered(req: AdmitRequest, limits: KeyLimits, tag: string, teamTokens: number | undefined): Promise<LimitTicket> {
    const key = req.key;
    const now = this.#p.time.now();
    const subject: LimitSubject = { keyId: key.id, teamId: key.teamId, month: monthOf(now), key: limits, teamTokensPerMonth: teamTokens };
    const overrides = limits.dollarsPerMonth !== undefined ? (this.#prices.peek('all') ?? await this.#prices.get('all', () => readPriceOverrides(this.#ctx.db))) : null;
    const estimate = estimateCall(req.clientStyle, req.body, req.estimatedInputTokens, req.candidates, overrides);
    if (estimate.unpriced.length > 0) throw unpricedRefusal(estimate.unpriced);

    let result: ReserveResult;
    try {
      // Seeding needs the database and the store once a month per key (and after changes); usually it is done.
      const seeding = this.#p.seeder.ensure(subject, tag);
      if (seeding) await this.#seedWithin(seeding, this.#p.reserveTimeoutMs ?? 2000);
      // The batcher refuses a reserve whose round trip takes longer than its bound (one timer per batch) and gives a
      // reservation that arrives after that back at once.
      result = await this.#p.batcher.reserve(subject, { tokens: estimate.tokens, dollars: estimate.dollars });
    } catch (err) {
      if (isSvcError(err)) throw err;
      this.#ctx.log.error({ err, key: key.id }, 'limit counters unavailable: metered call refused');
      throw svcError('counters_unavailable', 'The limit counters cannot be reached, so this key\'s limits cannot be checked; the call is refused rather than let through unmetered. Retry shortly.', {}, { 'retry-after': '1' });
    }
    if (!result.ok) throw limitRefusal(result, estimate, new Date(now + msToNextMonth(now)).toISOString());
    return this.#ticket(req, subject, result.reservationId);
  }

  /** Waits for a seed within `ms`; a database that could not be read is no reason to refuse (SeedSkipped). */
  async #seedWithin(seeding: Promise<void>, ms: number): Promise<void> {
    const wait = timeout(ms);
    try {
      await Promise.race([seeding, wait.promise]);
    } catch (err) {
      if (!(err instanceof SeedSkipped)) throw err;
    } finally {
      wait.cancel();
    }
  }

  #ticket(req: AdmitRequest, subject: LimitSubject | undefined, reservationId: string): LimitTicket {
    let settled = false;
    return {
      settle: (record: UsageRecord, answer?: CallAnswer) => {
        if (settled) return;
        settled = true;
        if (subject) this.#settle(req.key, subject, reservationId, record);
        if (req.key.logBodies !== 'off') {
          const row = callBodyOf(record, req.raw, answer, req.key.logBodies);
          if (row) this.#p.bodies.write(row);
        }
      },
    };
  }

  #settle(key: GatewayKey, subject: LimitSubject, reservationId: string, record: UsageRecord): void {
    this.#p.batcher.settle({ subject, reservationId, actual: { tokens: tokensOf(record), dollars: record.costUsd } }, (totals) => this.#p.alerts.check(key, subject, totals));
  }
}
