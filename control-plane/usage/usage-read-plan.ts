/**
 * Which parts of a usage window [from, to) are read from the rollups and which from usage_records. The rollups
 * cover whole hours before rolled_until (and whole days within them); the rest is read raw: a partial hour at the
 * start, everything from the last rolled hour on, and, inside the rolled hours, the rows the last rollup run did
 * not see (rows that arrived late, found by their writing transaction against the run's snapshot). The daily rows of
 * the day rolled_until falls in hold that day's hours so far (when daysUntil says the job kept them up to
 * rolled_until), so a window reaching rolled_until reads today from them, not from every hourly row of today.
 */
import type { Queryable } from '../../core/db/db.ts';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export interface RollupState {
  rolledUntil: number;
  snapshot: string;
  snapshotXmin: string;
  /** The daily rows hold every rolled-up hour before this (null: only whole days before rolled_until). */
  daysUntil: number | null;
}

export type Range = readonly [from: number, to: number];

export interface ReadPlan {
  /** Daily rollups for the days in this range (none: null). */
  days: Range | null;
  /** Hourly rollups for the hours in these ranges. */
  hours: Range[];
  /** Raw rows in these ranges. */
  raw: Range[];
  /** The hours covered by rollups, where rows the last run did not see are read raw too; null: none. */
  rolled: Range | null;
  state: RollupState | null;
}

const floorTo = (t: number, step: number) => Math.floor(t / step) * step;
const ceilTo = (t: number, step: number) => Math.ceil(t / step) * step;

/** Splits [from, to) by the rollup state; useDays: whole days may come from the daily rollups. */
export function planRead(from: number, to: number, state: RollupState | null, useDays: boolean): ReadPlan {
  const h1 = ceilTo(from, HOUR_MS);
  const h2 = state ? floorTo(Math.min(to, state.rolledUntil), HOUR_MS) : h1;
  if (!state || h1 >= h2) return { days: null, hours: [], raw: [[from, to]], rolled: null, state: null };
  const raw: Range[] = [];
  if (from < h1) raw.push([from, h1]);
  if (h2 < to) raw.push([h2, to]);
  const d1 = ceilTo(h1, DAY_MS);
  // The current day's daily rows hold [its start, rolled_until): whole for a window that reads up to rolled_until.
  const partialDay = h2 === state.rolledUntil && state.daysUntil === state.rolledUntil;
  const d2 = partialDay ? ceilTo(h2, DAY_MS) : floorTo(h2, DAY_MS);
  if (!useDays || d1 >= d2) return { days: null, hours: [[h1, h2]], raw, rolled: [h1, h2], state };
  const hours: Range[] = [];
  if (h1 < d1) hours.push([h1, d1]);
  if (d2 < h2) hours.push([d2, h2]);
  return { days: [d1, d2], hours, raw, rolled: [h1, h2], state };
}

export async function readRollupState(q: Queryable): Promise<RollupState | null> {
  const r = await q.query<{ rolled_until: Date; snapshot: string; snapshot_xmin: string; days_until: Date | null }>(
    'SELECT rolled_until, snapshot, snapshot_xmin::text AS snapshot_xmin, days_until FROM usage_rollup_state WHERE id = 1',
  );
  const s = r.rows[0];
  if (!s) return null;
  return { rolledUntil: new Date(s.rolled_until).getTime(), snapshot: s.snapshot, snapshotXmin: s.snapshot_xmin, daysUntil: s.days_until ? new Date(s.days_until).getTime() : null };
}
