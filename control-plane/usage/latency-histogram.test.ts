import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/seeded-random.ts';
import { bucketLatency, histogramPercentile, LATENCY_RELATIVE_ERROR, packedPercentiles, unpackHistogram } from './latency-histogram.ts';
import { planRead, splitDays } from './usage-read-plan.ts';
import { sourceParts } from './usage-source.ts';

/** The bucket as the SQL computes it (latencyBucketSql), for the test. */
const bucketOf = (v: number) => (v < 16 ? v : 16 + Math.floor((8 * Math.log(v / 16)) / Math.log(2)));

/** percentile_cont over sorted values. */
function exact(sorted: number[], p: number): number {
  const pos = p * (sorted.length - 1);
  const k = Math.floor(pos);
  return k + 1 < sorted.length ? sorted[k] + (pos - k) * (sorted[k + 1] - sorted[k]) : sorted[k];
}

describe('latency histograms', () => {
  it('give p50/p95 within the stated bound of percentile_cont', () => {
    const rnd = seededRandom(7);
    for (let round = 0; round < 200; round++) {
      const n = 1 + Math.floor(rnd() * 400);
      const values = Array.from({ length: n }, () => Math.floor(Math.exp(rnd() * Math.log(120_000))));
      const h = new Map<number, number>();
      for (const v of values) h.set(bucketOf(v), (h.get(bucketOf(v)) ?? 0) + 1);
      values.sort((a, b) => a - b);
      for (const p of [0.5, 0.95]) {
        const want = exact(values, p);
        expect(Math.abs(histogramPercentile(h, p)! - want)).toBeLessThanOrEqual(LATENCY_RELATIVE_ERROR * want + 1e-9);
      }
    }
    expect(histogramPercentile(new Map(), 0.5)).toBeNull();
    expect(bucketLatency(7)).toBe(7);
  });

  it('give the same quantiles read straight off the packed numeric', () => {
    const rnd = seededRandom(11);
    for (let round = 0; round < 200; round++) {
      const h = new Map<number, number>();
      for (let i = Math.floor(rnd() * 300); i > 0; i--) {
        const b = bucketOf(Math.floor(Math.exp(rnd() * Math.log(120_000))));
        h.set(b, (h.get(b) ?? 0) + 1 + Math.floor(rnd() * 3));
      }
      const top = Math.max(0, ...h.keys());
      const packed = Array.from({ length: top + 1 }, (_, b) => String(h.get(top - b) ?? 0).padStart(12, '0')).join('').replace(/^0+(?=.)/, '');
      expect(packedPercentiles(packed, [0.5, 0.95])).toEqual([histogramPercentile(h, 0.5), histogramPercentile(h, 0.95)]);
    }
    expect(packedPercentiles(null, [0.5])).toEqual([null]);
    expect(packedPercentiles('0', [0.5, 0.95])).toEqual([null, null]);
  });

  it('unpack the numeric they are summed in (12 digits per bucket)', () => {
    expect([...unpackHistogram(`5${'0'.repeat(12)}000000000007`)]).toEqual([[0, 7], [2, 5]]);
    expect(unpackHistogram('0').size).toBe(0);
    expect(unpackHistogram(null).size).toBe(0);
  });
});

describe('planRead', () => {
  const H = 3_600_000;
  const D = 24 * H;
  const state = { rolledUntil: 10 * D + 5 * H, snapshot: '1:1:', snapshotXmin: '1', daysUntil: null, openUntil: null, blocksUntil: null };
  it('reads whole days and hours from rollups and the rest raw', () => {
    expect(planRead(2 * D + 30 * 60_000, 10 * D + 5 * H + 1234, state, true)).toMatchObject({
      days: [3 * D, 10 * D], hours: [[2 * D + H, 3 * D], [10 * D, 10 * D + 5 * H]],
      raw: [[2 * D + 30 * 60_000, 2 * D + H], [10 * D + 5 * H, 10 * D + 5 * H + 1234]], rolled: [2 * D + H, 10 * D + 5 * H],
    });
    expect(planRead(2 * D, 4 * D, state, false)).toMatchObject({ days: null, hours: [[2 * D, 4 * D]], raw: [] });
    expect(planRead(2 * D, 4 * D, null, true)).toMatchObject({ days: null, hours: [], raw: [[2 * D, 4 * D]], rolled: null });
    expect(planRead(11 * D, 12 * D, state, true)).toMatchObject({ hours: [], raw: [[11 * D, 12 * D]] });
  });
  it("reads the current day from its daily rows when the job kept them up to rolled_until", () => {
    const kept = { ...state, daysUntil: state.rolledUntil };
    expect(planRead(3 * D, 10 * D + 5 * H + 1234, kept, true)).toMatchObject({
      days: [3 * D, 11 * D], hours: [], raw: [[10 * D + 5 * H, 10 * D + 5 * H + 1234]], rolled: [3 * D, 10 * D + 5 * H],
    });
    // A window ending before rolled_until, or starting inside the current day: its hours.
    expect(planRead(3 * D, 10 * D + 4 * H, kept, true)).toMatchObject({ days: [3 * D, 10 * D], hours: [[10 * D, 10 * D + 4 * H]] });
    expect(planRead(10 * D + H, 11 * D, kept, true)).toMatchObject({ days: null, hours: [[10 * D + H, 10 * D + 5 * H]] });
    // Kept by an earlier run only (an older build ran the job since): its hours.
    expect(planRead(3 * D, 11 * D, { ...kept, daysUntil: 10 * D + 4 * H }, true)).toMatchObject({ days: [3 * D, 10 * D], hours: [[10 * D, 10 * D + 5 * H]] });
  });
  it('reads the rows from rolled_until on from the open rows for a window that holds all of them', () => {
    const open = { ...state, daysUntil: state.rolledUntil, openUntil: 10 * D + 5 * H + 1000 };
    // Nothing raw after rolled_until: the rows the last run did not see are read up to the window's end.
    expect(planRead(3 * D, 10 * D + 5 * H + 1234, open, true)).toMatchObject({
      days: [3 * D, 11 * D], hours: [], open: [10 * D + 5 * H, 10 * D + 5 * H + 1000], raw: [], rolled: [3 * D, 10 * D + 5 * H + 1234],
    });
    expect(planRead(3 * D, 10 * D + 5 * H + 1000, open, false)).toMatchObject({ days: null, hours: [[3 * D, 10 * D + 5 * H]], open: [10 * D + 5 * H, 10 * D + 5 * H + 1000], raw: [] });
    // A window starting in the open hour itself, or not aligned: what it holds before rolled_until is raw.
    expect(planRead(10 * D + 5 * H, 11 * D, open, true)).toMatchObject({ days: null, hours: [], open: [10 * D + 5 * H, 10 * D + 5 * H + 1000], raw: [], rolled: [10 * D + 5 * H, 11 * D] });
    expect(planRead(10 * D + 4 * H + 5, 11 * D, open, true)).toMatchObject({ hours: [], raw: [[10 * D + 4 * H + 5, 10 * D + 5 * H]], rolled: [10 * D + 5 * H, 11 * D] });
    // A window ending before some open row's time, or starting after rolled_until: raw from rolled_until on.
    expect(planRead(3 * D, 10 * D + 5 * H + 999, open, true)).toMatchObject({ open: null, raw: [[10 * D + 5 * H, 10 * D + 5 * H + 999]], rolled: [3 * D, 10 * D + 5 * H] });
    expect(planRead(10 * D + 5 * H + 1, 11 * D, open, true)).toMatchObject({ open: null, hours: [], raw: [[10 * D + 5 * H + 1, 11 * D]], rolled: null });
  });
  it('splits whole days into the fewest aligned blocks and the days left over', () => {
    // Days 3…32: 3, then 4–7 (4), 8–15 (8), 16–31 (16), then 32.
    const { blocks, days } = splitDays(3 * D, 33 * D);
    expect(Object.fromEntries(blocks)).toEqual({ 4: [4 * D], 8: [8 * D], 16: [16 * D] });
    expect(days).toEqual([[3 * D, 4 * D], [32 * D, 33 * D]]);
    const odd = splitDays(17 * D, 47 * D);
    expect(Object.fromEntries(odd.blocks)).toEqual({ 2: [18 * D, 44 * D], 4: [20 * D, 40 * D], 8: [24 * D, 32 * D] });
    expect(odd.days).toEqual([[17 * D, 18 * D], [46 * D, 47 * D]]);
    // Every day once.
    for (let a = 0; a < 40; a++) {
      for (let b = a; b < a + 40; b++) {
        const s = splitDays(a * D, b * D);
        const covered = [...[...s.blocks].flatMap(([n, starts]) => starts.flatMap((x) => Array.from({ length: n }, (_, i) => x / D + i))), ...s.days.flatMap(([x, y]) => Array.from({ length: (y - x) / D }, (_, i) => x / D + i))];
        expect(covered.sort((x, y) => x - y)).toEqual(Array.from({ length: b - a }, (_, i) => a + i));
        expect([...s.blocks.values()].flat().length + s.days.length).toBeLessThanOrEqual(10);
      }
    }
  });
  it('reads the groups of whole days from the blocks of days, up to blocksUntil, and never the series', () => {
    const f = { from: new Date(0), to: new Date(0), teams: null, adminTeams: [], userId: null };
    const kept = { ...state, rolledUntil: 40 * D + 5 * H, daysUntil: 40 * D + 5 * H, blocksUntil: 40 * D };
    const plan = planRead(3 * D, 40 * D + 5 * H, kept, true);
    const params: unknown[] = [];
    const sql = sourceParts(plan, [{ r: 'r.model', u: 'u.model' }], f, params, { rollupsOnly: true, blocks: true }).join();
    expect(sql).toContain("r.period = 'day_model_16'");
    expect(params).toContainEqual([new Date(16 * D).toISOString()]);
    // Today (day 40) and the day before the blocks (day 3) come from the days.
    expect(params).toContain(new Date(40 * D).toISOString());
    // Not for a caller that splits the rows by time (the series).
    expect(sourceParts(plan, [{ r: 'r.model', u: 'u.model' }], f, [], { rollupsOnly: true }).join()).not.toContain('day_model_');
    // Blocks that an earlier build's run left behind: days only.
    expect(sourceParts(planRead(3 * D, 40 * D + 5 * H, { ...kept, blocksUntil: null }, true), [{ r: 'r.model', u: 'u.model' }], f, [], { rollupsOnly: true, blocks: true }).join()).not.toContain('day_model_');
  });
});
