/**
 * An issue's hourly counts (by receive time, UTC hours) over the last N hours, dense: every hour appears, oldest
 * first, the current hour last, 0 where nothing arrived. Counts are kept 90 days (errors-retention.ts), so N is at
 * most 2160.
 */
import type { Queryable } from '../../core/db/db.ts';
import { svcError } from '../../core/errors.ts';

export const HOURLY_KEPT_DAYS = 90;
export const MAX_HOURS = HOURLY_KEPT_DAYS * 24;
export const DEFAULT_HOURS = 24;
const HOUR_MS = 3_600_000;

/** `?hours=` as a whole number from 1 to 2160 (default 24). */
export function parseHours(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_HOURS;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_HOURS) {
    throw svcError('validation_failed', `hours must be a whole number from 1 to ${MAX_HOURS} (${HOURLY_KEPT_DAYS} days).`, { parameter: 'hours', max: MAX_HOURS });
  }
  return n;
}

export async function hourlyCounts(db: Queryable, issueId: string, hours: number, now: number): Promise<Array<{ hour: string; count: number }>> {
  const current = Math.floor(now / HOUR_MS) * HOUR_MS;
  const start = current - (hours - 1) * HOUR_MS;
  const r = await db.query<{ hour: Date; count: number }>(
    'SELECT hour, count FROM issue_hourly WHERE issue_id = $1 AND hour >= $2 AND hour <= $3 ORDER BY hour',
    [issueId, new Date(start), new Date(current)],
  );
  const byHour = new Map(r.rows.map((row) => [row.hour.getTime(), row.count]));
  const out: Array<{ hour: string; count: number }> = [];
  for (let t = start; t <= current; t += HOUR_MS) out.push({ hour: new Date(t).toISOString(), count: byHour.get(t) ?? 0 });
  return out;
}

/** Most hours a list's sparklines may ask for (a week: one small query for a page of issues). */
export const MAX_SPARKLINE_HOURS = 168;

/**
 * The hourly counts of several issues at once (one query for a page of a list, never one per issue): for each id,
 * `hours` counts, oldest first, the current hour last.
 */
export async function hourlySeries(db: Queryable, issueIds: readonly string[], hours: number, now: number): Promise<Map<string, number[]>> {
  const current = Math.floor(now / HOUR_MS) * HOUR_MS;
  const start = current - (hours - 1) * HOUR_MS;
  const out = new Map(issueIds.map((id) => [id, new Array<number>(hours).fill(0)]));
  if (issueIds.length === 0) return out;
  const r = await db.query<{ issue_id: string; hour: Date; count: number }>(
    'SELECT issue_id, hour, count FROM issue_hourly WHERE issue_id = ANY($1::text[]) AND hour >= $2 AND hour <= $3',
    [issueIds, new Date(start), new Date(current)],
  );
  for (const row of r.rows) {
    const series = out.get(row.issue_id);
    if (series) series[(row.hour.getTime() - start) / HOUR_MS] = row.count;
  }
  return out;
}
