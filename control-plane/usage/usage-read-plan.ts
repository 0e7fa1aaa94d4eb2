/**
 * Which parts of a usage window [from, to) are read from the rollups and which from usage_records. The rollups
 * cover whole hours before rolled_until (and whole days within them); the rest is read raw: a partial hour at the
 * start, everything from the last rolled hour on, and, inside the rolled hours, the rows the last rollup run did
 * not see (rows that arrived late, found by their writing transaction against the run's snapshot). The daily rows of
 * the day rolled_until falls in hold that day's hours so far (when daysUntil says the job kept them up to
 * rolled_until), so a window reaching rolled_until reads today from them, not from every hourly row of today. The
 * rows from rolled_until on that the last run saw (the current hour so far) come from their own rollups (usage_rollups_open)
 * for a window that holds all of them (to >= open_until): then nothing is read raw after rolled_until but the rows
 * the last run did not see (about a minute's, written since it ran).
 */
import type { Queryable } from '../../core/db/db.ts';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** The blocks of days the daily rows are also summed over (rollup periods 'day_2', 'day_key_4'…). */
export const BLOCK_SPANS = [16, 8, 4, 2] as const;

/** The start of the block of span days that holds day (blocks start on a day whose number is a multiple of span). */
export function blockStart(day: number, span: number): number {
  return Math.floor(day / (span * DAY_MS)) * span * DAY_MS;
}

/**
 * The days [from, to) (whole days) as the fewest aligned blocks (the largest that fits at each step) and the days
 * left over, in ranges.
 */
export function splitDays(from: number, to: number): { blocks: Map<number, number[]>; days: Range[] } {
  const blocks = new Map<number, number[]>();
  const days: Range[] = [];
  for (let d = from; d < to;) {
    const span = BLOCK_SPANS.find((n) => blockStart(d, n) === d && d + n * DAY_MS <= to);
    if (span) {
      blocks.set(span, [...(blocks.get(span) ?? []), d]);
      d += span * DAY_MS;
    } else {
      const last = days.at(-1);
      if (last && last[1] === d) days[days.length - 1] = [last[0], d + DAY_MS];
      else days.push([d, d + DAY_MS]);
      d += DAY_MS;
    }
  }
  return { blocks, days };
}

export interface RollupState {
  rolledUntil: number;
  snapshot: string;
  snapshotXmin: string;
  /** The daily rows hold every rolled-up hour before this (null: only whole days before rolled_until). */
  daysUntil: number | null;
  /**
   * The records from rolled_until on that `snapshot` sees are rolled up (usage_rollups_open), all of them before this;
   * null when they are not (a run of an earlier build made the snapshot).
   */
  openUntil: number | null;
  /** Every block of days (BLOCK_SPANS) that ends by this is rolled up; null: none is (an earlier build ran the job). */
  blocksUntil: number | null;
}

export type Range = readonly [from: number, to: number];

export interface ReadPlan {
  /** Daily rollups for the days in this range (none: null). */
  days: Range | null;
  /** Hourly rollups for the hours in these ranges. */
  hours: Range[];
  /** The rollups from rolled_until on (usage_rollups_open, [rolled_until, open_until)); null: not read. */
  open: Range | null;
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
  // The rows from rolled_until on, for a window that holds all of them (from rolled_until to open_until at least):
  // then the rollups hold every row of [rolled_until, to) that the last run saw.
  const open: Range | null = state && state.openUntil !== null && from <= state.rolledUntil && to >= state.openUntil ? [state.rolledUntil, state.openUntil] : null;
  if (!state || (h1 >= h2 && !open)) return { days: null, hours: [], open: null, raw: [[from, to]], rolled: null, state: null };
  // The rollups cover [h1, end): the rows there that the last run did not see are read raw too.
  const end = open ? to : h2;
  const raw: Range[] = [];
  if (from < h1) raw.push([from, h1]);
  if (end < to) raw.push([end, to]);
  const d1 = ceilTo(h1, DAY_MS);
  // The current day's daily rows hold [its start, rolled_until): whole for a window that reads up to rolled_until.
  const partialDay = h2 === state.rolledUntil && state.daysUntil === state.rolledUntil;
  const d2 = partialDay ? ceilTo(h2, DAY_MS) : floorTo(h2, DAY_MS);
  if (!useDays || d1 >= d2) return { days: null, hours: h1 < h2 ? [[h1, h2]] : [], open, raw, rolled: [h1, end], state };
  const hours: Range[] = [];
  if (h1 < d1) hours.push([h1, d1]);
  if (d2 < h2) hours.push([d2, h2]);
  return { days: [d1, d2], hours, open, raw, rolled: [h1, end], state };
}

export async function readRollupState(q: Queryable): Promise<RollupState | null> {
  const r = await q.query<{ rolled_until: Date; snapshot: string; snapshot_xmin: string; days_until: Date | null; open_until: Date | null; open_snapshot: string | null; blocks_snapshot: string | null }>(
    'SELECT rolled_until, snapshot, snapshot_xmin::text AS snapshot_xmin, days_until, open_until, open_snapshot, blocks_snapshot FROM usage_rollup_state WHERE id = 1',
  );
  const s = r.rows[0];
  if (!s) return null;
  const rolledUntil = new Date(s.rolled_until).getTime();
  const openUntil = s.open_until ? new Date(s.open_until).getTime() : null;
  // The open rows count only if this snapshot made them (a run of an earlier build leaves them as they were).
  const open = openUntil !== null && s.open_snapshot === s.snapshot && openUntil >= rolledUntil;
  return {
    rolledUntil, snapshot: s.snapshot, snapshotXmin: s.snapshot_xmin, daysUntil: s.days_until ? new Date(s.days_until).getTime() : null,
    openUntil: open ? openUntil : null,
    // The blocks of whole days before rolled_until's day, when this snapshot's run kept them.
    blocksUntil: s.blocks_snapshot === s.snapshot ? Math.floor(rolledUntil / DAY_MS) * DAY_MS : null,
  };
}
