/**
 * Gateway key and team limits, exact across any number of proxy nodes: one atomic check-and-reserve before the
 * call, one settle after it. Two implementations behave the same: Redis (Lua on Redis time) and memory (one node).
 *
 * - requests per minute / per day: sliding windows counted in buckets (bucket-window.ts): a call counts in the
 *   minute for 59 to 60 s (1 s buckets) and in the day for 23 h 59 min to 24 h (1 min buckets), so a window's
 *   memory is bounded whatever the rate; a refusal says when the oldest bucket leaves (Retry-After).
 * - tokens per month / dollars per month (key) and tokens per month (team): before the call, the caller reserves its
 *   estimate (input tokens counted locally + max output tokens, at list price); the call is allowed only when
 *   spent + in flight + this reservation stays within the limit. After the call, settle() replaces the reservation
 *   with the real usage. Reservations expire (a node that died mid-call cannot hold budget forever).
 * - months are calendar months in UTC, named `YYYY-MM` by the caller.
 */

export type LimitCode = 'key_requests_per_minute' | 'key_requests_per_day' | 'key_tokens_per_month' | 'key_dollars_per_month' | 'team_ai_tokens';

export interface KeyLimits {
  requestsPerMinute?: number;
  requestsPerDay?: number;
  tokensPerMonth?: number;
  dollarsPerMonth?: number;
}

export interface LimitSubject {
  keyId: string;
  teamId: string;
  month: string;
  key: KeyLimits;
  /** The team's `ai.tokens`, when set. */
  teamTokensPerMonth?: number;
}

export interface Amount {
  /** Whole tokens (stores round). */
  tokens: number;
  dollars: number;
}

export type ReserveResult =
  | { ok: true; reservationId: string }
  | { ok: false; code: LimitCode; limit: number; used: number; retryAfterMs: number };

export interface Totals {
  keyTokens: number;
  keyDollars: number;
  teamTokens: number;
}

export interface Spend extends Totals {
  keyTokensInFlight: number;
  keyDollarsInFlight: number;
}

/** One call to reserve for: its subject and what it may use at most. */
export interface Reservation {
  subject: LimitSubject;
  estimate: Amount;
}

/** One call to settle: its subject, the id its reserve returned ('' when it reserved nothing), its real usage. */
export interface Settlement {
  subject: LimitSubject;
  reservationId: string;
  actual: Amount;
}

/** What exchange() answers: the settles' totals and the reserves' results, each in the order given. */
export interface Exchanged {
  totals: Totals[];
  results: ReserveResult[];
}

/**
 * Admitted calls of a key in the sliding windows: the last 60 s and the last 24 h. A store keeps the calls of a
 * key only while it has a request limit, and a day of them only while it has requests_per_day: a figure the store
 * does not keep is null (no request limit: both; requests_per_minute only: lastDay).
 */
export interface RequestCounts {
  lastMinute: number | null;
  lastDay: number | null;
}

export interface LimitStore {
  reserve(subject: LimitSubject, estimate: Amount, reservationTtlMs?: number): Promise<ReserveResult>;
  /** reserve() for several calls at once, in order (Redis: one script per team and month); results in order. */
  reserveMany(items: readonly Reservation[], reservationTtlMs?: number): Promise<ReserveResult[]>;
  /** Replaces the reservation with the real usage; returns the month's totals after it. */
  settle(subject: LimitSubject, reservationId: string, actual: Amount): Promise<Totals>;
  /**
   * settle() for several calls at once (Redis: one script per team and month); totals in the same order, each
   * with its key's totals after its own settle and its team's total after the whole batch.
   */
  settleMany(items: readonly Settlement[]): Promise<Totals[]>;
  /**
   * settleMany() then reserveMany() in one go: what a node sends at the end of each round of I/O (Redis: one script
   * per team and month for both, so settles ride with the reserves). The settles count before the reserves.
   */
  exchange(settlements: readonly Settlement[], reservations: readonly Reservation[], reservationTtlMs?: number): Promise<Exchanged>;
  spend(keyId: string, teamId: string, month: string): Promise<Spend>;
  /** Read only: the key's admitted calls in the windows its limits keep (see RequestCounts); one round trip. */
  requests(keyId: string, teamId: string, key: KeyLimits): Promise<RequestCounts>;
  /** Resolves once the store can take commands (Redis: its connection is ready), or after timeoutMs. */
  ready(timeoutMs?: number): Promise<boolean>;
  /**
   * Raises the month's spent totals to at least the given figures (from usage_records, the source of truth): a
   * store that lost its data (Redis restarted without persistence, a single node restarted with memory counters)
   * or missed calls made while a key had no limits catches up. Never lowers a total, so it is safe at any time.
   */
  seed(subject: Pick<LimitSubject, 'keyId' | 'teamId' | 'month'>, key: Amount, teamTokens: number): Promise<void>;
  /**
   * How many times the store may have lost writes since it was made: Redis counts every lost connection (to the
   * server or to any node of a cluster: a restart or a failover may lose the last writes, or all of them without
   * persistence); memory loses none. The seeder seeds a key again once this moved since its last seed.
   */
  lossCount(): number;
}

export const DEFAULT_RESERVATION_TTL_MS = 15 * 60_000;
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** The request windows' buckets: the minute in 60 buckets of a second, the day in 1,440 buckets of a minute. */
export const MINUTE_WINDOW = { bucketMs: 1000, buckets: 60 } as const;
export const DAY_WINDOW = { bucketMs: 60_000, buckets: 1440 } as const;

/** `YYYY-MM` of a time, in UTC. */
let monthMemo = { from: 0, to: 0, month: '' };

/** `YYYY-MM` (UTC) of t; remembered until the month ends (it runs on every metered call). */
export function monthOf(t: number): string {
  if (t >= monthMemo.from && t < monthMemo.to) return monthMemo.month;
  const d = new Date(t);
  const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  monthMemo = { from, to: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1), month: d.toISOString().slice(0, 7) };
  return monthMemo.month;
}

/** Milliseconds from t to the start of the next UTC month (budgets reset then). */
export function msToNextMonth(t: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - t;
}
