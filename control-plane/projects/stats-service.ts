/**
 * A project's ingest stats: how many items the ingest accepted, filtered, rate-limited, found invalid, and how
 * many the SDKs reported they discarded themselves, from ingest_outcomes (one row per project, UTC hour, outcome,
 * reason and data category). Used by the REST route and the MCP tool with the same Principal; any team member may
 * read them, other teams' projects are project_not_found.
 *
 * Counts are hourly, so an hour counts when it starts within [since, until): adjacent ranges never count an hour
 * twice. One query sums by bucket (date_trunc of the hour) and group, over the primary key's (project_id, hour)
 * range; totals are the sums of those rows. The series has every bucket, oldest first, each listing every group of
 * the totals (0 where nothing happened), so a chart draws it as it is. Grouped by outcome alone, every outcome is
 * listed even at 0 (the filter's outcomes only), so the answer keeps one shape.
 */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import type { Queryable } from '../../core/db/db.ts';
import { loadProject } from './project-service.ts';
import { OUTCOMES, type StatsGroup, type StatsParams } from './stats-params.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** One group's values (only the grouped dimensions; reason null for accepted items) and its quantity. */
export type StatsEntry = Partial<Record<StatsGroup, string | null>> & { quantity: number };

export interface StatsAnswer {
  project: number;
  since: string;
  until: string;
  interval: StatsParams['interval'];
  group_by: StatsGroup[];
  totals: StatsEntry[];
  series: Array<{ at: string; groups: StatsEntry[] }>;
}

interface SumRow {
  bucket_ms: number;
  quantity: number;
  outcome?: string;
  reason?: string;
  category?: string;
}

async function sumOutcomes(db: Queryable, projectId: number, q: StatsParams): Promise<SumRow[]> {
  const params: unknown[] = [projectId, q.since, q.until, q.interval];
  const where = ['o.project_id = $1', 'o.hour >= $2', 'o.hour < $3'];
  if (q.outcomes) where.push(`o.outcome = ANY($${params.push(q.outcomes)}::text[])`);
  if (q.categories) where.push(`o.category = ANY($${params.push(q.categories)}::text[])`);
  const cols = q.groupBy.map((g) => `o.${g}`);
  const by = ['1', ...cols].join(', ');
  const r = await db.query<SumRow>(
    `SELECT (extract(epoch FROM date_trunc($4, o.hour, 'UTC')) * 1000)::float8 AS bucket_ms, ${cols.map((c) => `${c}, `).join('')}sum(o.quantity)::float8 AS quantity
       FROM ingest_outcomes o WHERE ${where.join(' AND ')} GROUP BY ${by} ORDER BY ${by}`,
    params,
  );
  return r.rows;
}

/** Bucket starts (ms) covering the hours that start within [since, until); none when no hour does. */
function buckets(q: StatsParams): number[] {
  const firstHour = Math.ceil(q.since.getTime() / HOUR_MS) * HOUR_MS;
  const lastHour = Math.ceil(q.until.getTime() / HOUR_MS) * HOUR_MS - HOUR_MS;
  const step = q.interval === 'day' ? DAY_MS : HOUR_MS;
  const out: number[] = [];
  for (let t = Math.floor(firstHour / step) * step; t <= lastHour; t += step) out.push(t);
  return out;
}

const entryOf = (groupBy: readonly StatsGroup[], row: Partial<Record<StatsGroup, string>>): Partial<Record<StatsGroup, string | null>> =>
  Object.fromEntries(groupBy.map((g) => [g, g === 'reason' && row.reason === '' ? null : (row[g] ?? null)]));
const keyOf = (groupBy: readonly StatsGroup[], row: Partial<Record<StatsGroup, string | null>>) => JSON.stringify(groupBy.map((g) => row[g] ?? null));

export async function projectStats(ctx: AppContext, p: Principal, projectId: string | number, q: StatsParams): Promise<StatsAnswer> {
  const project = await loadProject(ctx, p, projectId, 'read');
  const rows = await sumOutcomes(ctx.db, project.id, q);
  const totals = new Map<string, StatsEntry>();
  if (q.groupBy.length === 1 && q.groupBy[0] === 'outcome') {
    for (const outcome of q.outcomes ?? OUTCOMES) totals.set(keyOf(q.groupBy, { outcome }), { outcome, quantity: 0 });
  }
  const byBucket = new Map<number, Map<string, number>>();
  for (const row of rows) {
    const values = entryOf(q.groupBy, row);
    const key = keyOf(q.groupBy, values);
    const total = totals.get(key) ?? { ...values, quantity: 0 };
    total.quantity += row.quantity;
    totals.set(key, total);
    const bucket = byBucket.get(row.bucket_ms) ?? new Map<string, number>();
    bucket.set(key, (bucket.get(key) ?? 0) + row.quantity);
    byBucket.set(row.bucket_ms, bucket);
  }
  // Largest first, ties in the order of their values, so that the order is stable between calls.
  const ordered = [...totals.entries()].sort(([ka, a], [kb, b]) => b.quantity - a.quantity || (ka < kb ? -1 : ka > kb ? 1 : 0));
  return {
    project: project.id,
    since: q.since.toISOString(),
    until: q.until.toISOString(),
    interval: q.interval,
    group_by: q.groupBy,
    totals: ordered.map(([, entry]) => entry),
    series: buckets(q).map((t) => ({
      at: new Date(t).toISOString(),
      groups: ordered.map(([key, entry]) => ({ ...entry, quantity: byBucket.get(t)?.get(key) ?? 0 })),
    })),
  };
}
