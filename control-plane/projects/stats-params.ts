/**
 * The parameters of a project's ingest stats (GET /api/v1/projects/{id}/stats, the `errors_stats` MCP tool), read
 * from query strings or tool arguments into one checked shape:
 *
 * - `since`, `until`: ISO 8601 times (a date such as 2026-01-15 is its UTC midnight); default the last 24 hours up
 *   to now; until must be later than since and at most 90 days after it;
 * - `interval`: `hour` (default) or `day` (UTC buckets);
 * - `group_by`: any of `outcome`, `reason`, `category`, comma-separated (default `outcome`);
 * - `outcome`, `category`: only these (one value or several, comma-separated).
 *
 * Outcomes are the ingest's closed list (ingest/lib/item-outcome.ts, plus `client_discard`); it is repeated here
 * because the control plane does not import the ingest.
 */
import { svcError } from '../../core/errors.ts';

export const OUTCOMES = ['accepted', 'filtered', 'rate_limited', 'invalid', 'client_discard'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const STATS_GROUPS = ['outcome', 'reason', 'category'] as const;
export type StatsGroup = (typeof STATS_GROUPS)[number];
export const INTERVALS = ['hour', 'day'] as const;
export type Interval = (typeof INTERVALS)[number];

export const MAX_RANGE_DAYS = 90;
const DAY_MS = 86_400_000;
const DEFAULT_RANGE_MS = DAY_MS;
/** Data categories are snake_case words (error, attachment, log_item, user_report_v2…). */
const CATEGORY = /^[a-z][a-z0-9_]{0,39}$/;
const ISO_TIME = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d))?$/i;

export interface StatsParams {
  since: Date;
  until: Date;
  interval: Interval;
  groupBy: StatsGroup[];
  outcomes?: Outcome[];
  categories?: string[];
}

/** Query-string schema (all strings: parseStatsParams checks them, so that refusals carry our codes). */
export const STATS_QUERY = {
  since: { type: 'string', description: 'Start, an ISO 8601 time (default: 24 hours before until).' },
  until: { type: 'string', description: `End, an ISO 8601 time (default: now); at most ${MAX_RANGE_DAYS} days after since.` },
  interval: { type: 'string', description: 'Series bucket: hour (default) or day, in UTC.' },
  group_by: { type: 'string', description: `Comma-separated: ${STATS_GROUPS.join(', ')} (default outcome).` },
  outcome: { type: 'string', description: `Only these outcomes (comma-separated): ${OUTCOMES.join(', ')}.` },
  category: { type: 'string', description: 'Only these data categories (comma-separated), e.g. error, attachment, session.' },
} as const;

export type StatsInput = Partial<Record<keyof typeof STATS_QUERY, unknown>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const list = (raw: string) => [...new Set(raw.split(',').map((s) => s.trim()).filter(Boolean))];

function parseTime(raw: string, parameter: 'since' | 'until'): Date {
  const t = Date.parse(raw);
  if (!ISO_TIME.test(raw) || Number.isNaN(t)) {
    throw svcError('invalid_time', `${parameter} must be an ISO 8601 time such as 2026-01-15T12:00:00Z or a date such as 2026-01-15 (got "${raw.slice(0, 40)}").`, { parameter });
  }
  return new Date(t);
}

function oneOf<T extends string>(raw: string, allowed: readonly T[], parameter: string): T[] {
  const values = list(raw);
  const bad = values.find((v) => !(allowed as readonly string[]).includes(v));
  if (values.length === 0 || bad !== undefined) {
    throw svcError('validation_failed', `${parameter} takes a comma-separated list of ${allowed.join(', ')} (got "${(bad ?? raw).slice(0, 40)}").`, { parameter, allowed });
  }
  return values as T[];
}

/** The checked parameters; `now` (ms) fills the default range. */
export function parseStatsParams(input: StatsInput, now: number): StatsParams {
  const rawSince = str(input.since);
  const rawUntil = str(input.until);
  const until = rawUntil === undefined ? new Date(now) : parseTime(rawUntil, 'until');
  const since = rawSince === undefined ? new Date(until.getTime() - DEFAULT_RANGE_MS) : parseTime(rawSince, 'since');
  if (until.getTime() <= since.getTime()) {
    throw svcError('invalid_time_range', `until (${until.toISOString()}) must be later than since (${since.toISOString()}).`, { since: since.toISOString(), until: until.toISOString() });
  }
  if (until.getTime() - since.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    throw svcError('invalid_time_range', `The range from since to until spans more than ${MAX_RANGE_DAYS} days; ask for a shorter one.`, { since: since.toISOString(), until: until.toISOString(), max_days: MAX_RANGE_DAYS });
  }
  const interval = str(input.interval) ?? 'hour';
  if (!(INTERVALS as readonly string[]).includes(interval)) {
    throw svcError('validation_failed', `interval must be hour or day (got "${interval.slice(0, 40)}").`, { parameter: 'interval', allowed: INTERVALS });
  }
  const out: StatsParams = { since, until, interval: interval as Interval, groupBy: ['outcome'] };
  const groupBy = str(input.group_by);
  if (groupBy !== undefined) out.groupBy = oneOf(groupBy, STATS_GROUPS, 'group_by');
  const outcome = str(input.outcome);
  if (outcome !== undefined) out.outcomes = oneOf(outcome, OUTCOMES, 'outcome');
  const category = str(input.category);
  if (category !== undefined) {
    const categories = list(category);
    const bad = categories.find((c) => !CATEGORY.test(c));
    if (categories.length === 0 || bad !== undefined) {
      throw svcError('validation_failed', `category takes data categories such as error or attachment: lowercase letters, digits and underscores (got "${(bad ?? category).slice(0, 40)}").`, { parameter: 'category' });
    }
    out.categories = categories;
  }
  return out;
}
