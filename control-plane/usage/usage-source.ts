/**
 * The rows the usage analytics add up, as one SQL subquery: rollup rows for the rolled-up part of the window and
 * usage records for the rest (usage-read-plan.ts), in one shape: the requested dimensions d0…dn, calls, errors,
 * the four token sums, cost (numeric, so that any order of addition gives the same figure), the packed latency
 * histogram (latency-histogram.ts) and, for raw rows only, the latency itself (for exact percentiles where nothing
 * is rolled up), rolled_calls (calls that came from the rollups), and the calls compressed in `on` with their
 * estimated tokens before and after compression.
 */
import { latencyBucketSql } from './latency-histogram.ts';
import { splitDays, type Range, type ReadPlan } from './usage-read-plan.ts';

export const GROUPS = ['model', 'key', 'account', 'team'] as const;
export type Group = (typeof GROUPS)[number];

/** A dimension in each source: `r` a usage_rollups row, `u` a usage_records row. */
export interface Dim {
  r: string;
  u: string;
}

export const GROUP_DIMS: Record<Group, Dim> = {
  model: { r: 'r.model', u: 'coalesce(u.served_model, u.model)' },
  key: { r: 'r.key_id', u: 'u.key_id' },
  account: { r: 'r.account_id', u: 'u.account_id' },
  team: { r: 'r.team_id', u: 'u.team_id' },
};

export interface UsageFilter {
  from: Date;
  to: Date;
  /** null = every team (superusers); else the teams the caller may read. */
  teams: string[] | null;
  /** Teams where the caller may see other members' own keys (admins); ignored when teams is null. */
  adminTeams: string[];
  userId: string | null;
  teamId?: string;
  keyId?: string;
}

/**
 * Visibility and filters on a row with team_id and key_id (params appended): the caller's teams, and other
 * members' own keys only in teams the caller administers.
 */
export function visibleTo(alias: string, f: UsageFilter, params: unknown[]): string[] {
  const w: string[] = [];
  if (f.teams) {
    w.push(`${alias}.team_id = ANY($${params.push(f.teams)})`);
    w.push(`(${alias}.team_id = ANY($${params.push(f.adminTeams)}) OR NOT EXISTS (SELECT 1 FROM gateway_keys gk WHERE gk.id = ${alias}.key_id AND gk.owner_user_id IS NOT NULL AND gk.owner_user_id <> $${params.push(f.userId ?? '')}))`);
  }
  if (f.teamId) w.push(`${alias}.team_id = $${params.push(f.teamId)}`);
  if (f.keyId) w.push(`${alias}.key_id = $${params.push(f.keyId)}`);
  return w;
}

/**
 * Whether the caller sees every key of the rows the filter reads (superusers; team admins within their teams) and no
 * key is singled out: then the hourly rows summed per team ('hour_team') give the same totals as the 'hour' rows.
 */
export function seesWholeTeams(f: UsageFilter): boolean {
  if (f.keyId) return false;
  if (f.teams === null) return true;
  return f.teamId ? f.adminTeams.includes(f.teamId) : f.teams.every((t) => f.adminTeams.includes(t));
}

const iso = (t: number) => new Date(t).toISOString();

function inRanges(col: string, ranges: readonly Range[], params: unknown[]): string {
  return `(${ranges.map(([a, b]) => `(${col} >= $${params.push(iso(a))} AND ${col} < $${params.push(iso(b))})`).join(' OR ')})`;
}

export interface SourceOptions {
  /** Only the usage records' part. */
  rawOnly?: boolean;
  /** Only the rollups' part. */
  rollupsOnly?: boolean;
  /** The hourly rows to read: 'hour_team' only for dims without key, model or account, and when seesWholeTeams. */
  hours?: 'hour' | 'hour_team';
  /**
   * Whole days may come from the blocks of days ('day_key_8'…): only for a caller that does not split the rows by
   * time (a time dimension of theirs would be the block's start).
   */
  blocks?: boolean;
}

/** The subquery (params appended); dims are selected as d0…dn. */
export function usageSource(plan: ReadPlan, dims: readonly Dim[], f: UsageFilter, params: unknown[], opts: SourceOptions = {}): string {
  const parts = sourceParts(plan, dims, f, params, opts);
  return parts.length > 0 ? `(${parts.join('\n UNION ALL\n')})` : '(SELECT NULL LIMIT 0)';
}

/** The subquery's SELECTs, one per part (none when the plan reads nothing of the parts asked for). */
export function sourceParts(plan: ReadPlan, dims: readonly Dim[], f: UsageFilter, params: unknown[], opts: SourceOptions = {}): string[] {
  const { rawOnly = false, rollupsOnly = false, hours = 'hour', blocks = false } = opts;
  const parts: string[] = [];
  // A record's figures, or (sign '-') its figures taken back out, without its latency (the exact percentiles read
  // the records as they are now) and as one rolled-up call less.
  const recordCols = (d: string, sign: '' | '-' = '') => `${d}${sign}1::bigint AS calls, ${sign}(u.status >= 400 OR u.error_code IS NOT NULL)::int::bigint AS errors,
    ${sign}u.input_tokens::bigint AS input_tokens, ${sign}u.output_tokens::bigint AS output_tokens, ${sign}u.cache_read_tokens::bigint AS cache_read_tokens,
    ${sign}u.cache_write_tokens::bigint AS cache_write_tokens, ${sign}u.cost_usd::numeric AS cost_usd,
    ${sign}w.weight AS hist, ${sign ? 'NULL::int' : 'u.latency_ms'} AS latency_ms, ${sign ? '-1' : '0'}::bigint AS rolled_calls,
    ${sign}(u.compression_mode = 'on')::int::bigint AS compressed_calls,
    ${sign}(CASE WHEN u.compression_mode = 'on' THEN u.compression_tokens_before ELSE 0 END)::bigint AS compression_tokens_before,
    ${sign}(CASE WHEN u.compression_mode = 'on' THEN u.compression_tokens_after ELSE 0 END)::bigint AS compression_tokens_after`;
  const dimCols = (side: 'r' | 'u') => dims.map((d, i) => `${d[side]} AS d${i}, `).join('');
  // Each record's histogram weight by a hash join on its latency bucket, not an index lookup per record.
  const weights = `LEFT JOIN usage_latency_weights w ON w.bucket = ${latencyBucketSql('u.latency_ms')}`;
  const rollupCols = `${dimCols('r')}r.calls, r.errors, r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cost_usd,
      r.latency_histogram AS hist, NULL::int AS latency_ms, r.calls AS rolled_calls,
      r.compressed_calls, r.compression_tokens_before, r.compression_tokens_after`;
  // The coarsest daily rows that hold the dimensions: summed over keys and accounts for a caller who sees whole
  // teams and groups by neither, summed over accounts without the account (fewer rows to read and add up).
  const day = dims.includes(GROUP_DIMS.account) ? 'day' : !dims.includes(GROUP_DIMS.key) && seesWholeTeams(f) ? 'day_model' : 'day_key';
  if (!rawOnly && (plan.days || plan.hours.length > 0)) {
    const periods: string[] = [];
    if (plan.days && blocks && plan.state?.blocksUntil != null) {
      // The blocks of days that end by blocksUntil, the other days one by one.
      const [d1, d2] = plan.days;
      const split = splitDays(d1, Math.max(d1, Math.min(d2, plan.state.blocksUntil)));
      const days = split.days.concat(plan.state.blocksUntil < d2 ? [[Math.max(d1, plan.state.blocksUntil), d2]] : []);
      if (days.length > 0) periods.push(`(r.period = '${day}' AND ${inRanges('r.bucket', days, params)})`);
      for (const [span, starts] of split.blocks) periods.push(`(r.period = '${day}_${span}' AND r.bucket = ANY($${params.push(starts.map(iso))}::timestamptz[]))`);
    } else if (plan.days) periods.push(`(r.period = '${day}' AND ${inRanges('r.bucket', [plan.days], params)})`);
    if (plan.hours.length > 0) periods.push(`(r.period = '${hours}' AND ${inRanges('r.bucket', plan.hours, params)})`);
    const w = [`(${periods.join(' OR ')})`, ...visibleTo('r', f, params)];
    parts.push(`SELECT ${rollupCols} FROM usage_rollups r WHERE ${w.join(' AND ')}`);
  }
  if (!rawOnly && plan.open) {
    // The records from rolled_until on that the last run saw (the current hour so far), at the days' grain when
    // the hours asked for are the full 'hour' rows ('hour_key' for 'day_key'…).
    const w = [`r.period = '${hours === 'hour' ? day.replace('day', 'hour') : hours}'`, ...visibleTo('r', f, params)];
    parts.push(`SELECT ${rollupCols} FROM usage_rollups_open r WHERE ${w.join(' AND ')}`);
  }
  if (rollupsOnly) return parts;
  if (plan.raw.length > 0) {
    const w = [inRanges('u.at', plan.raw, params), ...visibleTo('u', f, params)];
    parts.push(`SELECT ${recordCols(dimCols('u'))} FROM usage_records u ${weights} WHERE ${w.join(' AND ')}`);
  }
  if (plan.rolled && plan.state) {
    // Rows in rolled-up hours (and from rolled_until on, where the open rows are read) that the last run's snapshot
    // did not see (written since, or late): found through the BRIN index on written_xid of each partition, fenced
    // (OFFSET 0) so that the caller's team filter is applied after it, not through a team index scan over 30 days
    // of every partition (measured 6 ms against 37 ms).
    const w = [
      inRanges('u.at', [plan.rolled], params),
      `u.written_xid >= $${params.push(plan.state.snapshotXmin)}::bigint`,
      `NOT pg_visible_in_snapshot(u.written_xid::text::xid8, $${params.push(plan.state.snapshot)}::pg_snapshot)`,
    ];
    const visible = visibleTo('u', f, params);
    parts.push(`SELECT ${recordCols(dimCols('u'))} FROM (SELECT * FROM usage_records u WHERE ${w.join(' AND ')} OFFSET 0) u ${weights}${visible.length > 0 ? ` WHERE ${visible.join(' AND ')}` : ''}`);
    // Earlier versions of records replaced since that run (a lost call's estimate replaced by its real record): the
    // rollups counted them and the replacing version is read raw above, so they are taken back out, once each.
    const snapshot = `$${params.push(plan.state.snapshot)}::pg_snapshot`;
    const r = [
      inRanges('u.at', [plan.rolled], params),
      `(u.written_xid IS NULL OR pg_visible_in_snapshot(u.written_xid::text::xid8, ${snapshot}))`,
      `NOT pg_visible_in_snapshot(x.replaced_xid::text::xid8, ${snapshot})`,
      ...visibleTo('u', f, params),
    ];
    parts.push(`SELECT ${recordCols(dimCols('u'), '-')} FROM usage_records_replaced x CROSS JOIN LATERAL jsonb_populate_record(NULL::usage_records, x.old) u ${weights} WHERE ${r.join(' AND ')}`);
  }
  return parts;
}
