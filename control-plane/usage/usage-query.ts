/**
 * Usage analytics (GET /api/v1/usage): per group (any of model, key, account, team) the calls, tokens (input,
 * output, cache read, cache write), cost, error count and p50/p95 latency, plus totals and a time series by day or
 * hour (UTC buckets). Costs are the recorded ones: the list price, or the instance's override, in force when the
 * call was made. "model" is the model that answered (the one asked for when no upstream answered). An error is a
 * call answered with status >= 400 or one whose stream ended in an error.
 *
 * Read from the usage rollups where they exist and usage_records for the rest (usage-read-plan.ts), inside one
 * REPEATABLE READ transaction so that the rollup state, the rollups and the raw rows are one snapshot. Sums and
 * counts equal the raw query's exactly. p50/p95 are exact (percentile_cont) for a group none of whose calls are
 * rolled up yet, else read from the latency histograms, within LATENCY_RELATIVE_ERROR (latency-histogram.ts).
 * Calls compressed in `on` carry their estimated tokens before and after compression; they are also read per model,
 * so that the saved tokens can be priced at each model's prices.
 */
import { createHash } from 'node:crypto';
import type { Db, Queryable, QueryOptions } from '../../core/db/db.ts';
import { packedPercentiles } from './latency-histogram.ts';
import { planRead, readRollupState, type ReadPlan } from './usage-read-plan.ts';
import { GROUP_DIMS, seesWholeTeams, sourceParts, usageSource, type Dim, type Group, type UsageFilter } from './usage-source.ts';

export { GROUPS, type Group, type UsageFilter } from './usage-source.ts';

const METRICS = `sum(s.calls)::int AS calls,
  coalesce(sum(s.input_tokens), 0)::float8 AS input_tokens,
  coalesce(sum(s.output_tokens), 0)::float8 AS output_tokens,
  coalesce(sum(s.cache_read_tokens), 0)::float8 AS cache_read_tokens,
  coalesce(sum(s.cache_write_tokens), 0)::float8 AS cache_write_tokens,
  coalesce(sum(s.cost_usd), 0)::float8 AS cost_usd,
  coalesce(sum(s.errors), 0)::int AS errors,
  coalesce(sum(s.compressed_calls), 0)::int AS compressed_calls,
  coalesce(sum(s.compression_tokens_before), 0)::float8 AS compression_tokens_before,
  coalesce(sum(s.compression_tokens_after), 0)::float8 AS compression_tokens_after`;

interface MetricRow {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  errors: number;
  /** Calls compressed in `on`, and their estimated input tokens before and after compression. */
  compressed_calls: number;
  compression_tokens_before: number;
  compression_tokens_after: number;
}

export interface GroupRow extends MetricRow {
  g0?: string | null;
  g1?: string | null;
  g2?: string | null;
  g3?: string | null;
  p50: number | null;
  p95: number | null;
}

export interface SeriesRow extends MetricRow {
  bucket_ms: number;
}

interface RawGroupRow extends MetricRow {
  rolled: number;
  exact_p50: number | null;
  exact_p95: number | null;
  hist: string | null;
}

const DAY_OF: Dim = { r: "date_trunc('day', r.bucket, 'UTC')", u: "date_trunc('day', u.at, 'UTC')" };
const bucketMs = (col: string) => `(extract(epoch FROM ${col}) * 1000)::float8`;

type Kind = 'total' | 'series' | 'group';

/**
 * The report's statements are prepared under a name of their text: a report of the same shape on the same
 * connection is then not planned again (planning one over the usage records' day partitions took about 12 ms).
 */
const prepared = (sql: string): QueryOptions => ({ name: `svc_usage_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}` });

function toGroupRow(row: RawGroupRow & Record<string, string | null>, n: number): GroupRow {
  const out: GroupRow = {
    calls: row.calls, input_tokens: row.input_tokens, output_tokens: row.output_tokens, cache_read_tokens: row.cache_read_tokens, cache_write_tokens: row.cache_write_tokens,
    cost_usd: row.cost_usd, errors: row.errors, compressed_calls: row.compressed_calls, compression_tokens_before: row.compression_tokens_before,
    compression_tokens_after: row.compression_tokens_after, p50: row.exact_p50, p95: row.exact_p95,
  };
  for (let i = 0; i < n; i++) (out as unknown as Record<string, string | null>)[`g${i}`] = row[`g${i}`] ?? null;
  if (row.rolled > 0) [out.p50, out.p95] = packedPercentiles(row.hist, [0.5, 0.95]);
  return out;
}

/** The usage source's columns after the dimensions, as the raw part's sums give them (latency_ms only raw). */
const RAW_SUMS = ['sum(s.calls)::bigint AS calls', 'sum(s.errors)::bigint AS errors', 'sum(s.input_tokens)::bigint AS input_tokens',
  'sum(s.output_tokens)::bigint AS output_tokens', 'sum(s.cache_read_tokens)::bigint AS cache_read_tokens', 'sum(s.cache_write_tokens)::bigint AS cache_write_tokens',
  'sum(s.cost_usd) AS cost_usd', 'sum(s.hist) AS hist', 'NULL::int AS latency_ms', '0::bigint AS rolled_calls', 'sum(s.compressed_calls)::bigint AS compressed_calls',
  'sum(s.compression_tokens_before)::bigint AS compression_tokens_before', 'sum(s.compression_tokens_after)::bigint AS compression_tokens_after'];
const SOURCE_COLUMNS = RAW_SUMS.map((c) => c.slice(c.lastIndexOf(' ') + 1));

/**
 * Groups with their metrics, biggest cost first (at most maxGroups + 1: one more says there are more), the totals
 * and, with daily, the daily series, in one statement, by hashing. The groups are added up from the rows that hold
 * their dimensions; the totals and the series from the coarsest rows that give the same sums (per team and model
 * for a caller who sees whole teams: 2,400 rows for 30 days where the groups by key and model read 24,000, each
 * with a packed histogram of about 1,300 digits to add). The usage records' part is read once and summed per group
 * and day first, for both. The exact percentiles (which need sorted latencies) only where some row has no rolled-up
 * call (a group new since the last rollup run, or a window the rollups do not cover): a second pass over the usage
 * records' part only, matched on the group's values (NULL-safe), so that a report over rolled-up days does not sort
 * the raw tail for nothing.
 */
async function groupsOf(q: Queryable, plan: ReadPlan, f: UsageFilter, groups: readonly Group[], maxGroups: number, daily: boolean): Promise<{ groups: GroupRow[]; total: GroupRow | undefined; series: SeriesRow[] }> {
  const params: unknown[] = [];
  const dims = groups.map((g) => GROUP_DIMS[g]);
  const n = dims.length;
  const d = groups.map((_, i) => `s.d${i}`);
  // The raw part, summed per group and day: d0…d(n-1) the groups' dimensions, dn the day (daily only).
  const all = daily ? [...dims, DAY_OF] : dims;
  const rawParts = sourceParts(plan, all, f, params, { rawOnly: true });
  const raw = rawParts.length > 0
    ? `raw AS (SELECT ${[...all.map((_, i) => `s.d${i}`), ...RAW_SUMS].join(', ')} FROM (${rawParts.join('\n UNION ALL\n')}) s${all.length ? ` GROUP BY ${all.map((_, i) => i + 1).join(', ')}` : ''})`
    : null;
  const sums = [METRICS, 'sum(s.rolled_calls)::int AS rolled', 'sum(s.hist)::text AS hist'];
  const selects: string[] = [];
  // kind 2: the groups.
  // (Grouped by the groups' dimensions only: the day column of their rollup rows is unused, so blocks of days will do.)
  const groupParts = [...(n ? sourceParts(plan, all, f, params, { rollupsOnly: true, blocks: true }) : []), ...(n && raw ? ['SELECT * FROM raw'] : [])];
  if (groupParts.length > 0) {
    selects.push(`SELECT ${[...d.map((c, i) => `${c} AS g${i}`), '2 AS kind', 'NULL::float8 AS t', ...sums].join(', ')}
      FROM (${groupParts.join('\n UNION ALL\n')}) s GROUP BY ${d.join(', ')}`);
  }
  // kind 0: the totals; kind 1: a day of the series.
  const coarse = sourceParts(plan, daily ? [DAY_OF] : [], f, params, { rollupsOnly: true, hours: seesWholeTeams(f) ? 'hour_team' : 'hour' });
  const totalParts = [...coarse, ...(raw ? [`SELECT ${[...(daily ? [`raw.d${n} AS d0`] : []), ...SOURCE_COLUMNS.map((c) => `raw.${c}`)].join(', ')} FROM raw`] : [])];
  if (totalParts.length === 0) return { groups: [], total: undefined, series: [] };
  selects.push(`SELECT ${[...groups.map((_, i) => `NULL AS g${i}`), daily ? '(CASE WHEN grouping(s.d0) = 0 THEN 1 ELSE 0 END) AS kind' : '0 AS kind',
    daily ? `${bucketMs('s.d0')} AS t` : 'NULL::float8 AS t', ...sums].join(', ')}
      FROM (${totalParts.join('\n UNION ALL\n')}) s GROUP BY ${daily ? 'GROUPING SETS ((s.d0), ())' : '()'}`);
  type Row = RawGroupRow & { kind: number; t: number | null } & Record<string, string | null>;
  const rSql = `${raw ? `WITH ${raw}\n` : ''}SELECT * FROM (${selects.join('\n UNION ALL\n')}) m
      WHERE m.calls > 0
      ORDER BY m.kind, m.t, m.cost_usd DESC, m.calls DESC${groups.length ? `, ${groups.map((_, i) => `m.g${i}`).join(', ')}` : ''}`;
  const r = await q.query<Row>(rSql, params, prepared(rSql));
  const rows = r.rows.map((row) => ({ ...row, exact_p50: null, exact_p95: null }) as Row);
  const keyOf = (row: Record<string, unknown>, k: number) => JSON.stringify([k, ...groups.map((_, i) => row[`g${i}`] ?? null)]);
  const unrolled = rows.filter((row) => row.rolled === 0 && Number(row.kind) !== 1);
  if (unrolled.length > 0) {
    const eParams: unknown[] = [];
    const eSets = [...(d.length ? [`(${d.join(', ')})`] : []), '()'];
    const kind = `(CASE WHEN ${d.length ? `grouping(${d[0]}) = 0` : 'false'} THEN 2 ELSE 0 END)`;
    const eSql = `SELECT ${[...d.map((c, i) => `${c} AS g${i}`), `${kind} AS kind`, 'percentile_cont(0.5) WITHIN GROUP (ORDER BY s.latency_ms)::float8 AS exact_p50', 'percentile_cont(0.95) WITHIN GROUP (ORDER BY s.latency_ms)::float8 AS exact_p95'].join(', ')}
         FROM ${usageSource(plan, dims, f, eParams, { rawOnly: true })} s GROUP BY GROUPING SETS (${eSets.join(', ')})`;
    const e = await q.query<{ kind: number; exact_p50: number | null; exact_p95: number | null } & Record<string, string | null>>(eSql, eParams, prepared(eSql));
    const exact = new Map(e.rows.map((x) => [keyOf(x, Number(x.kind)), x]));
    for (const row of unrolled) {
      const x = exact.get(keyOf(row, Number(row.kind)));
      row.exact_p50 = x?.exact_p50 ?? null;
      row.exact_p95 = x?.exact_p95 ?? null;
    }
  }
  const of = (k: Kind) => rows.filter((row) => ['total', 'series', 'group'][Number(row.kind)] === k);
  return {
    groups: of('group').slice(0, maxGroups + 1).map((row) => toGroupRow(row, groups.length)),
    total: of('total').map((row) => toGroupRow(row, 0))[0],
    series: of('series').map((row) => ({ ...toGroupRow(row, 0), bucket_ms: Number(row.t) })),
  };
}

/** The series by hour (from hourly rows only: the plan has no days), per team where the caller sees whole teams. */
async function seriesOf(q: Queryable, plan: ReadPlan, f: UsageFilter, interval: 'day' | 'hour'): Promise<SeriesRow[]> {
  const params: unknown[] = [];
  const at: Dim = { r: 'r.bucket', u: 'u.at' };
  const rSql = `SELECT ${bucketMs(`date_trunc('${interval}', s.d0, 'UTC')`)} AS bucket_ms, ${METRICS}
       FROM ${usageSource(plan, [at], f, params, { hours: seesWholeTeams(f) ? 'hour_team' : 'hour' })} s GROUP BY 1 ORDER BY 1`;
  const r = await q.query<SeriesRow>(rSql, params, prepared(rSql));
  return r.rows;
}

/** The calls compressed in `on` of one group and one model (g0…gn as in GroupRow), to price what was saved. */
export interface CompressedRow {
  g0?: string | null;
  g1?: string | null;
  g2?: string | null;
  g3?: string | null;
  model: string;
  calls: number;
  tokens_before: number;
  tokens_after: number;
}

/** The compressed calls per group and model (the groups' figures split by model), from the same rows as the groups. */
async function compressedOf(q: Queryable, plan: ReadPlan, f: UsageFilter, groups: readonly Group[]): Promise<CompressedRow[]> {
  const params: unknown[] = [];
  const dims = [...groups.map((g) => GROUP_DIMS[g]), GROUP_DIMS.model];
  const g = groups.map((_, i) => `s.d${i} AS g${i}`);
  const rSql = `SELECT ${[...g, `s.d${groups.length} AS model`].join(', ')}, sum(s.compressed_calls)::int AS calls,
            sum(s.compression_tokens_before)::float8 AS tokens_before, sum(s.compression_tokens_after)::float8 AS tokens_after
       FROM ${usageSource(plan, dims, f, params, { blocks: true })} s GROUP BY ${dims.map((_, i) => i + 1).join(', ')} HAVING sum(s.compressed_calls) > 0`;
  const r = await q.query<CompressedRow>(rSql, params, prepared(rSql));
  return r.rows;
}

/** The compressed calls of groups that include the model, read off the groups themselves. */
function compressedOfGroups(rows: readonly GroupRow[], groups: readonly Group[]): CompressedRow[] {
  const g = (row: GroupRow, i: number) => (row as unknown as Record<string, string | null>)[`g${i}`] ?? null;
  const modelAt = groups.indexOf('model');
  return rows.filter((row) => row.compressed_calls > 0).map((row) => ({
    ...Object.fromEntries(groups.map((_, i) => [`g${i}`, g(row, i)])),
    model: g(row, modelAt) ?? '',
    calls: row.compressed_calls,
    tokens_before: row.compression_tokens_before,
    tokens_after: row.compression_tokens_after,
  }));
}

export interface UsageReport {
  groups: GroupRow[];
  total: GroupRow;
  series: SeriesRow[];
  /** Per group and model, the calls compressed in `on` (none when the window has none). */
  compressed: CompressedRow[];
}

/** Groups (at most maxGroups + 1), totals and the time series of one window, from one snapshot. */
export async function readUsage(db: Db, f: UsageFilter, groups: readonly Group[], interval: 'day' | 'hour', maxGroups: number, opts: { rollups?: boolean } = {}): Promise<UsageReport> {
  return db.tx(async (q) => {
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    // No JIT: the raw tail's estimate puts a 30-day report over jit_above_cost, and compiling its expressions took
    // about 48 ms of a statement that runs in 40 (EXPLAIN ANALYZE at 10 M records).
    await q.query('SET LOCAL jit = off');
    // Planned for its parameters each time: after five runs of a prepared statement Postgres may keep a generic plan,
    // which cannot see that the rows the last rollup run did not see are few (the BRIN scan on written_xid) nor how
    // short the raw tail is: 3.6 to 5 s at 10 M records instead of about 0.2 s (measured on a busy machine).
    await q.query('SET LOCAL plan_cache_mode = force_custom_plan');
    const state = opts.rollups === false ? null : await readRollupState(q);
    const from = f.from.getTime();
    const to = f.to.getTime();
    const byDay = planRead(from, to, state, true);
    const daily = interval === 'day';
    const read = await groupsOf(q, byDay, f, groups, maxGroups, daily);
    const { groups: rows, total } = read;
    const series = daily ? read.series : await seriesOf(q, planRead(from, to, state, false), f, interval);
    const none = { calls: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0, errors: 0, compressed_calls: 0, compression_tokens_before: 0, compression_tokens_after: 0, p50: null, p95: null };
    // Split by model only when something was compressed: a window without compression pays for no second read, and
    // groups that include the model and are all here are that split already.
    const compressed = !total || total.compressed_calls === 0 ? []
      : groups.includes('model') && rows.length <= maxGroups ? compressedOfGroups(rows, groups)
      : await compressedOf(q, byDay, f, groups);
    return { groups: rows, total: total ?? none, series, compressed };
  });
}

/** Display names of the ids in the groups (keys, accounts, teams), one query per kind present. */
export async function namesOf(db: Queryable, kind: 'key' | 'account' | 'team', ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const table = kind === 'key' ? 'gateway_keys' : kind === 'account' ? 'provider_accounts' : 'teams';
  const r = await db.query<{ id: string; name: string }>(`SELECT id, name FROM ${table} WHERE id = ANY($1)`, [ids]);
  return new Map(r.rows.map((x) => [x.id, x.name]));
}
