/**
 * What a gateway key has left this month (GET /api/v1/quota): its limits, what it spent (the larger of the limit
 * counters, which see a call the moment it ends, and usage_records, the source of truth a few hundred ms behind),
 * what is reserved by calls in flight, and what remains for new calls (limit − spent − in flight, never below 0).
 * Months are calendar months in UTC on the counters' clock. Requests: the calls admitted in the last 60 s and 24 h
 * (sliding windows, as the limits count them) and what remains of each request limit; the counters keep a day of
 * calls only while the key has requests_per_day and none without a request limit, so a figure not kept is null.
 */
import type { AppContext } from '../../core/context.ts';
import { rfc3339 } from '../../core/clock.ts';
import { readKeyLimits, type KeyLimits } from '../../core/ai/key-limits.ts';
import { createLimitStore } from '../../core/limits/create-limit-store.ts';
import { monthOf, msToNextMonth, type RequestCounts, type Spend } from '../../core/limits/limit-store.ts';
import { readKeyMonthSpend, readTeamMonthTokens } from '../../core/limits/read-month-spend.ts';
import { readTeamLimits } from '../../core/team-limits.ts';

export interface QuotaKey {
  id: string;
  name: string;
  team_id: string;
  limits: unknown;
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
const left = (limit: number | undefined, used: number) => (limit === undefined ? null : Math.max(0, limit - used));
const UNCOUNTED: RequestCounts = { lastMinute: null, lastDay: null };
const leftOf = (limit: number | undefined, used: number | null) => (limit === undefined || used === null ? null : Math.max(0, limit - used));
const ZERO: Spend = { keyTokens: 0, keyDollars: 0, teamTokens: 0, keyTokensInFlight: 0, keyDollarsInFlight: 0 };

export async function keyQuota(ctx: AppContext, k: QuotaKey): Promise<Record<string, unknown>> {
  const limits: KeyLimits = readKeyLimits(k.limits);
  const teamLimit = (await readTeamLimits(ctx.db, k.team_id))['ai.tokens'];
  let counters: 'ok' | 'unavailable' = 'ok';
  let now: number;
  try {
    now = await ctx.counters.time();
  } catch {
    now = ctx.clock.now();
    counters = 'unavailable';
  }
  const month = monthOf(now);
  const limitStore = () => createLimitStore(ctx.counters, ctx.clock);
  // Either read failing marks the counters unavailable; its figures are then zero (spend) or null (requests).
  const fromCounters = async <T>(read: () => Promise<T>, fallback: T): Promise<T> => {
    if (counters !== 'ok') return fallback;
    try {
      return await read();
    } catch {
      counters = 'unavailable';
      return fallback;
    }
  };
  const windows = { requestsPerMinute: limits.requests_per_minute, requestsPerDay: limits.requests_per_day };
  const [store, calls, key, teamTokens] = await Promise.all([
    fromCounters(() => limitStore().spend(k.id, k.team_id, month), ZERO),
    fromCounters(() => limitStore().requests(k.id, k.team_id, windows), UNCOUNTED),
    readKeyMonthSpend(ctx.db, k.id, month),
    readTeamMonthTokens(ctx.db, k.team_id, month),
  ]);
  const requests = counters === 'ok' ? calls : UNCOUNTED;
  const spentTokens = Math.max(store.keyTokens, key.tokens);
  const spentDollars = Math.max(store.keyDollars, key.dollars);
  const teamSpent = Math.max(store.teamTokens, teamTokens);
  return {
    key: { id: k.id, name: k.name, team: k.team_id },
    month,
    resets_at: rfc3339(now + msToNextMonth(now)),
    limits: {
      requests_per_minute: limits.requests_per_minute ?? null,
      requests_per_day: limits.requests_per_day ?? null,
      tokens_per_month: limits.tokens_per_month ?? null,
      dollars_per_month: limits.dollars_per_month ?? null,
    },
    requests: { last_minute: requests.lastMinute, last_day: requests.lastDay },
    spent: { tokens: spentTokens, dollars: round6(spentDollars) },
    in_flight: { tokens: store.keyTokensInFlight, dollars: round6(store.keyDollarsInFlight) },
    remaining: {
      tokens: left(limits.tokens_per_month, spentTokens + store.keyTokensInFlight),
      dollars: limits.dollars_per_month === undefined ? null : round6(Math.max(0, limits.dollars_per_month - spentDollars - store.keyDollarsInFlight)),
      requests_per_minute: leftOf(limits.requests_per_minute, requests.lastMinute),
      requests_per_day: leftOf(limits.requests_per_day, requests.lastDay),
    },
    team: { tokens_per_month: teamLimit ?? null, spent_tokens: teamSpent, remaining_tokens: left(teamLimit, teamSpent) },
    counters,
  };
}
