/**
 * Usage rollups against real Postgres: the usage analytics read from rollups equal the raw query exactly (calls,
 * tokens, cost, errors per group and per time bucket) for random data, including rows that arrive late into
 * rolled-up hours, a row of a transaction still open while the job runs, repeated and overlapping runs, the current
 * day read from its daily rows so far, the current hour read from its rollups so far (usage_rollups_open) with the records
 * written since read raw, a lost call's estimate replaced by its real record, the daily rows summed per team and
 * model and over blocks of days; p50/p95
 * from the histograms stay within the stated bound of the raw percentiles; visibility holds. Without DATABASE_URL
 * the same runs on the embedded database (the same migrations).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../core/db/db.ts';
import { migrate } from '../../core/db/migrate.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { readUsage, type Group, type GroupRow, type UsageFilter } from '../../control-plane/usage/usage-query.ts';
import { rollUpUsage } from '../../control-plane/usage/roll-up-usage.ts';
import { seesWholeTeams } from '../../control-plane/usage/usage-source.ts';
import { planRead, readRollupState } from '../../control-plane/usage/usage-read-plan.ts';
import { LATENCY_RELATIVE_ERROR } from '../../control-plane/usage/latency-histogram.ts';
import { generateUsageRecords } from '../../bench/usage/generate-usage-records.ts';
import { createTestDatabase, REAL_PG, type TestDatabase } from '../support/test-db.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// A fixed "now" in the middle of an hour; the job and the reads are given their times.
const NOW = Date.UTC(2026, 10, 20, 15, 37, 12);
const GROUPINGS: Group[][] = [[], ['model'], ['key'], ['account'], ['team'], ['model', 'key'], ['key', 'account', 'team'], ['team', 'account', 'model', 'key']];

let t: TestDatabase;
let db: Db;

const superuser = (from: number, to: number): UsageFilter => ({ from: new Date(from), to: new Date(to), teams: null, adminTeams: [], userId: null });
const member = (from: number, to: number): UsageFilter => ({ ...superuser(from, to), teams: ['team_0', 'team_1'], adminTeams: ['team_1'], userId: 'u_member' });
const keyOnly = (from: number, to: number): UsageFilter => ({ ...superuser(from, to), teamId: 'team_2', keyId: 'key_2_3' });
// An admin of every team they read: the hourly series comes from the rows summed per team.
const admin = (from: number, to: number): UsageFilter => ({ ...superuser(from, to), teams: ['team_1', 'team_3'], adminTeams: ['team_1', 'team_3'], userId: 'u_member' });

beforeAll(async () => {
  t = await createTestDatabase();
  db = t.db;
  await migrate(db, MIGRATIONS_DIR);
  await db.exec(`INSERT INTO users (id, username) VALUES ('u_member', 'member'), ('u_other', 'other');
    INSERT INTO teams (id, name) SELECT 'team_' || i, 't' || i FROM generate_series(0, 9) i;
    INSERT INTO gateway_keys (id, team_id, owner_user_id, name, key_hash, key_hint) VALUES
      ('key_0_0', 'team_0', 'u_other', 'own of other', 'h1', 'x'), ('key_0_1', 'team_0', 'u_member', 'own', 'h2', 'x'),
      ('key_1_0', 'team_1', 'u_other', 'own of other in admin team', 'h3', 'x'), ('key_0_2', 'team_0', NULL, 'team key', 'h4', 'x')`);
}, 120_000);
afterAll(async () => {
  await db?.close();
  await t?.drop();
});

const keyOf = (r: GroupRow, n: number) => JSON.stringify([r.g0, r.g1, r.g2, r.g3].slice(0, n));
const sums = (r: Omit<GroupRow, 'p50' | 'p95'>) => [
  r.calls, r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cost_usd, r.errors,
  r.compressed_calls, r.compression_tokens_before, r.compression_tokens_after,
];

/** Rollups and raw give the same sums for every grouping and both intervals; percentiles within the bound. */
async function expectSameAsRaw(f: UsageFilter): Promise<number> {
  let compared = 0;
  for (const groups of GROUPINGS) {
    for (const interval of ['day', 'hour'] as const) {
      if (interval === 'hour' && f.to.getTime() - f.from.getTime() > 31 * DAY) continue;
      const [fast, raw] = await Promise.all([readUsage(db, f, groups, interval, 5000), readUsage(db, f, groups, interval, 5000, { rollups: false })]);
      const rawBy = new Map(raw.groups.map((r) => [keyOf(r, groups.length), r]));
      expect(fast.groups.length).toBe(raw.groups.length);
      for (const r of fast.groups) {
        const x = rawBy.get(keyOf(r, groups.length));
        expect(x, keyOf(r, groups.length)).toBeDefined();
        expect(sums(r)).toEqual(sums(x!));
        for (const p of ['p50', 'p95'] as const) expect(Math.abs(r[p]! - x![p]!)).toBeLessThanOrEqual(LATENCY_RELATIVE_ERROR * x![p]! + 1e-9);
        compared++;
      }
      expect(sums(fast.total)).toEqual(sums(raw.total));
      // The totals' percentiles, from the groups' histograms added up.
      for (const p of ['p50', 'p95'] as const) expect(Math.abs(fast.total[p]! - raw.total[p]!)).toBeLessThanOrEqual(LATENCY_RELATIVE_ERROR * raw.total[p]! + 1e-9);
      // The compressed calls split by model, to price the savings: the same rows either way.
      const byModel = (rows: typeof fast.compressed) => rows.map((c) => JSON.stringify(c)).sort();
      expect(byModel(fast.compressed)).toEqual(byModel(raw.compressed));
      expect(fast.series.map((s) => [s.bucket_ms, ...sums(s)])).toEqual(raw.series.map((s) => [s.bucket_ms, ...sums(s)]));
    }
  }
  return compared;
}

/** Each block of days holds, row for row, the sums of the days it spans; returns how many blocks there are. */
async function expectBlocksSumTheirDays(): Promise<number> {
  let blocks = 0;
  for (const period of ['day', 'day_key', 'day_model']) {
    for (const span of [2, 4, 8, 16]) {
      const r = await db.query<{ n: number; differ: number }>(
        `WITH b AS (SELECT bucket, team_id, key_id, model, coalesce(account_id, '') AS account, calls, errors, input_tokens, cost_usd::text AS cost,
                           latency_histogram::text AS hist, compression_tokens_before FROM usage_rollups WHERE period = $1),
              d AS (SELECT to_timestamp(floor(extract(epoch FROM bucket) / ($3 * 86400)) * ($3 * 86400)) AS bucket, team_id, key_id, model,
                           coalesce(account_id, '') AS account, sum(calls) AS calls, sum(errors) AS errors, sum(input_tokens) AS input_tokens,
                           sum(cost_usd)::text AS cost, sum(latency_histogram)::text AS hist, sum(compression_tokens_before) AS compression_tokens_before
                      FROM usage_rollups WHERE period = $2 AND bucket IN (SELECT generate_series(x.bucket, x.bucket + ($3 - 1) * interval '1 day', interval '1 day') FROM (SELECT DISTINCT bucket FROM b) x)
                     GROUP BY 1, 2, 3, 4, 5)
         SELECT (SELECT count(DISTINCT bucket) FROM b)::int AS n,
                (SELECT count(*) FROM ((TABLE b EXCEPT ALL TABLE d) UNION ALL (TABLE d EXCEPT ALL TABLE b)) x)::int AS differ`,
        [`${period}_${span}`, period, span],
      );
      expect(r.rows[0].differ, `${period}_${span}`).toBe(0);
      blocks += r.rows[0].n;
    }
  }
  return blocks;
}

async function independentTotal(from: number, to: number): Promise<{ calls: number; cost: number }> {
  const r = await db.query<{ calls: number; cost: number }>('SELECT count(*)::int AS calls, sum(cost_usd::numeric)::float8 AS cost FROM usage_records WHERE at >= $1 AND at < $2', [new Date(from), new Date(to)]);
  return r.rows[0];
}

describe('usage rollups', () => {
  it('equal the raw query after the first run, for 40 days of random records', async () => {
    await generateUsageRecords(db, 6000, NOW - 40 * DAY, NOW + 1000);
    // Some in the current hour so far (a few of them a second ahead of NOW, as from a node whose clock is ahead).
    await generateUsageRecords(db, 10, Math.floor(NOW / HOUR) * HOUR, NOW + 1000);
    const run = await rollUpUsage(db, NOW);
    expect(run?.rolledUntil.getTime()).toBe(Math.floor(NOW / HOUR) * HOUR);
    const rolled = await db.query<{ n: number }>("SELECT sum(calls)::int AS n FROM usage_rollups WHERE period = 'day'");
    expect(rolled.rows[0].n).toBeGreaterThan(4000);
    const from = Math.floor(NOW / DAY) * DAY - 29 * DAY;
    const fast = await readUsage(db, superuser(from, NOW + 1), [], 'day', 1);
    const ind = await independentTotal(from, NOW + 1);
    expect([fast.total.calls, fast.total.cost_usd]).toEqual([ind.calls, ind.cost]);
    // Calls compressed in `on`, with their tokens before and after compression, against a plain query.
    const compressed = await db.query<{ calls: number; before: number; after: number }>(
      "SELECT count(*)::int AS calls, sum(compression_tokens_before)::float8 AS before, sum(compression_tokens_after)::float8 AS after FROM usage_records WHERE compression_mode = 'on' AND at >= $1 AND at < $2",
      [new Date(from), new Date(NOW + 1)],
    );
    expect(compressed.rows[0].calls).toBeGreaterThan(1000);
    expect([fast.total.compressed_calls, fast.total.compression_tokens_before, fast.total.compression_tokens_after]).toEqual([compressed.rows[0].calls, compressed.rows[0].before, compressed.rows[0].after]);
    expect(fast.compressed.reduce((a, c) => a + c.tokens_before - c.tokens_after, 0)).toBe(compressed.rows[0].before - compressed.rows[0].after);
    // The daily series against a plain query of the records.
    const days = await db.query<{ t: number; calls: number; cost: number }>(
      "SELECT (extract(epoch FROM date_trunc('day', at, 'UTC')) * 1000)::float8 AS t, count(*)::int AS calls, sum(cost_usd::numeric)::float8 AS cost FROM usage_records WHERE at >= $1 AND at < $2 GROUP BY 1 ORDER BY 1",
      [new Date(from), new Date(NOW + 1)],
    );
    expect(fast.series.map((p) => [p.bucket_ms, p.calls, p.cost_usd])).toEqual(days.rows.map((r) => [r.t, r.calls, r.cost]));
    expect(await expectSameAsRaw(superuser(from, NOW + 1))).toBeGreaterThan(100);
    // The hourly rows summed per team: one per team and hour, with the same sums.
    const perTeam = await db.query<{ period: string; n: number; calls: number; cost: string }>(
      `SELECT period, count(DISTINCT (bucket, team_id))::int AS n, count(*)::int AS rows, sum(calls)::int AS calls, sum(cost_usd)::text AS cost
         FROM usage_rollups WHERE period IN ('hour', 'hour_team') GROUP BY period ORDER BY period`,
    );
    expect(perTeam.rows[1]).toMatchObject({ period: 'hour_team', rows: perTeam.rows[0].n });
    expect([perTeam.rows[1].n, perTeam.rows[1].calls, perTeam.rows[1].cost]).toEqual([perTeam.rows[0].n, perTeam.rows[0].calls, perTeam.rows[0].cost]);
    // The daily rows summed per team and model: one per day, team and model, with the same sums.
    const perModel = await db.query<{ period: string; n: number; calls: number; cost: string; hist: string }>(
      `SELECT period, count(DISTINCT (bucket, team_id, model))::int AS n, count(*)::int AS rows, sum(calls)::int AS calls, sum(cost_usd)::text AS cost,
              md5(sum(latency_histogram)::text) AS hist
         FROM usage_rollups WHERE period IN ('day', 'day_model') GROUP BY period ORDER BY period`,
    );
    expect(perModel.rows[1]).toMatchObject({ period: 'day_model', rows: perModel.rows[0].n });
    // The blocks of whole days (the 40 days hold blocks of every span), which the groups of long windows read.
    expect(await expectBlocksSumTheirDays()).toBeGreaterThanOrEqual(3 * (19 + 9 + 4 + 1));
    expect((await readRollupState(db))?.blocksUntil).toBe(Math.floor(NOW / DAY) * DAY);
    expect([perModel.rows[1].n, perModel.rows[1].calls, perModel.rows[1].cost, perModel.rows[1].hist]).toEqual([perModel.rows[0].n, perModel.rows[0].calls, perModel.rows[0].cost, perModel.rows[0].hist]);
    // The current day's daily rows hold its hours so far, and the report reads today from them.
    const today = Math.floor(NOW / DAY) * DAY;
    const partial = await db.query<{ period: string; calls: number; cost: string }>(
      `SELECT period, sum(calls)::int AS calls, sum(cost_usd)::text AS cost FROM usage_rollups
        WHERE period IN ('day', 'day_key', 'day_model') AND bucket = $1 OR period = 'hour' AND bucket >= $1 GROUP BY period ORDER BY period`,
      [new Date(today)],
    );
    expect(partial.rows.map((r) => r.period)).toEqual(['day', 'day_key', 'day_model', 'hour']);
    expect(partial.rows[0].calls).toBeGreaterThan(0);
    for (const r of partial.rows) expect([r.calls, r.cost]).toEqual([partial.rows[3].calls, partial.rows[3].cost]);
    const state = await readRollupState(db);
    expect(state?.daysUntil).toBe(Math.floor(NOW / HOUR) * HOUR);
    expect(planRead(from, NOW + 1, state, true)).toMatchObject({ days: [from, today + DAY], hours: [] });
    // The records from rolled_until on that the run saw (the current hour so far, some a second past NOW) are in the
    // open rows; a window that reaches past the last of them reads them from there, and nothing raw.
    const hour = Math.floor(NOW / HOUR) * HOUR;
    const open = await db.query<{ period: string; calls: number; cost: string }>(
      'SELECT period, sum(calls)::int AS calls, sum(cost_usd)::text AS cost FROM usage_rollups_open GROUP BY period ORDER BY period',
    );
    const openRaw = await db.query<{ calls: number; cost: string; last: Date }>('SELECT count(*)::int AS calls, sum(cost_usd::numeric)::text AS cost, max(at) AS last FROM usage_records WHERE at >= $1', [new Date(hour)]);
    expect(openRaw.rows[0].calls).toBeGreaterThan(0);
    expect(open.rows.map((r) => [r.period, r.calls, r.cost])).toEqual(['hour', 'hour_key', 'hour_model', 'hour_team'].map((p) => [p, openRaw.rows[0].calls, openRaw.rows[0].cost]));
    expect(state?.openUntil).toBe(Math.floor(new Date(openRaw.rows[0].last).getTime()) + 1);
    expect(planRead(from, NOW + 2000, state, true)).toMatchObject({ days: [from, today + DAY], hours: [], open: [hour, state!.openUntil], raw: [], rolled: [from, NOW + 2000] });
    await expectSameAsRaw(superuser(from, NOW + 2000));
    await expectSameAsRaw(superuser(hour, NOW + 2000));
    // A window not aligned to hours, and a week of hours.
    await expectSameAsRaw(superuser(NOW - 9 * DAY - 1234567, NOW - 2 * DAY + 7654));
    await expectSameAsRaw(superuser(NOW - 7 * DAY, NOW + 1));
    // A model seen only since the last run (its exact percentiles from the records), and a window none of whose
    // hours is rolled up.
    // (These records are written after the run: the open rows do not hold them, they are read raw.)
    await generateUsageRecords(db, 20, hour, NOW);
    await db.query("UPDATE usage_records SET served_model = 'model_new' WHERE written_xid = (SELECT max(written_xid) FROM usage_records)");
    for (const to of [NOW + 1, NOW + 2000]) {
      const fresh = await readUsage(db, superuser(from, to), ['model'], 'day', 100);
      expect(fresh.groups.find((g) => g.g0 === 'model_new')?.p50).toBeGreaterThan(0);
      await expectSameAsRaw(superuser(from, to));
      await expectSameAsRaw(superuser(hour, to));
    }
    // A run of an earlier build (it leaves the open rows and open_snapshot as they were, with a newer snapshot that
    // sees records the open rows do not hold): readers read the current hour raw again.
    await generateUsageRecords(db, 30, hour, NOW);
    await db.query('UPDATE usage_rollup_state SET snapshot = pg_current_snapshot()::text, snapshot_xmin = pg_snapshot_xmin(pg_current_snapshot())::text::bigint');
    expect((await readRollupState(db))?.openUntil).toBeNull();
    // (Its blocks of days too: it may have recomputed days without them.)
    await db.query("UPDATE usage_rollups SET calls = calls + 1 WHERE period = 'day_key_16'");
    expect((await readRollupState(db))?.blocksUntil).toBeNull();
    await expectSameAsRaw(superuser(from, NOW + 2000));
    await rollUpUsage(db, NOW);
    expect((await readRollupState(db))?.openUntil).toBeGreaterThan(hour);
    expect((await readRollupState(db))?.blocksUntil).toBe(Math.floor(NOW / DAY) * DAY);
    await expectBlocksSumTheirDays();
  }, 120_000);

  it('count late rows at once (read raw until the next run) and after the run recomputes their hours', async () => {
    // A node's journal replayed: rows with old times, written after the run.
    await generateUsageRecords(db, 500, NOW - 20 * DAY, NOW - 2 * HOUR);
    // Calls that started in the current hour before the last run and ended after it (written since).
    await generateUsageRecords(db, 40, Math.floor(NOW / HOUR) * HOUR, NOW - 60_000);
    await expectSameAsRaw(superuser(NOW - 29 * DAY, NOW + 1));
    await expectSameAsRaw(superuser(NOW - 29 * DAY, NOW + 20 * 60_000));
    const run = await rollUpUsage(db, NOW + 10 * 60_000);
    expect(run!.hours).toBeGreaterThan(100);
    await expectBlocksSumTheirDays();
    await expectSameAsRaw(superuser(NOW - 29 * DAY, NOW + 1));
    await expectSameAsRaw(superuser(NOW - 29 * DAY, NOW + 20 * 60_000));
    // Nothing new: a repeated run changes nothing (it may recompute hours again while some transaction of the
    // server, even in another database, is older than its last snapshot: the snapshot's horizon stays behind it).
    const digest = async () => (await db.query<{ d: string }>("SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) AS d FROM (SELECT * FROM usage_rollups UNION ALL SELECT * FROM usage_rollups_open) r")).rows[0].d;
    const before = await digest();
    await rollUpUsage(db, NOW + 11 * 60_000);
    expect(await digest()).toBe(before);
    await expectSameAsRaw(superuser(NOW - 29 * DAY, NOW + 1));
    // A run of an earlier build (it kept only whole days): readers read today's hours until the next run keeps the
    // current day's rows again.
    await db.query("DELETE FROM usage_rollups WHERE period IN ('day', 'day_key', 'day_model') AND bucket >= $1", [new Date(Math.floor(NOW / DAY) * DAY)]);
    await db.query('UPDATE usage_rollup_state SET days_until = NULL');
    await generateUsageRecords(db, 40, Math.floor(NOW / DAY) * DAY, NOW - HOUR);
    await expectSameAsRaw(superuser(NOW - 29 * DAY, NOW + 1));
    const again = await rollUpUsage(db, NOW + 12 * 60_000);
    expect(again!.days).toBeGreaterThanOrEqual(1);
    expect((await readRollupState(db))?.daysUntil).toBe(Math.floor(NOW / HOUR) * HOUR);
    await expectSameAsRaw(superuser(NOW - 29 * DAY, NOW + 1));
  }, 120_000);

  it('count a lost call once when its real record replaces the estimate the rollups hold, before and after the next run', async () => {
    // The leader's estimates of two calls lost with their node (proxy/metering close-lost-calls' shape): one in a
    // rolled-up hour, one in the current hour; the job rolls both up.
    const lost = [['00000000-0000-4000-8000-000000000001', NOW - 3 * HOUR], ['00000000-0000-4000-8000-000000000002', Math.floor(NOW / HOUR) * HOUR + 60_000]] as const;
    for (const [id, at] of lost) {
      await db.query(
        `INSERT INTO usage_records (record_id, at, key_id, team_id, model, served_model, account_id, client_style, status, error_code,
           input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usage_source, latency_ms, cost_usd, stream, expires_at)
         VALUES ($1, $2, 'key_0_1', 'team_0', 'model_1', 'model_1', 'acc_1', 'chat', 200, 'node_lost', 5000, 800, 0, 0, 'estimated', 4000, 0.125, true, $2::timestamptz + interval '90 days')`,
        [id, new Date(at)],
      );
    }
    await rollUpUsage(db, NOW + 13 * 60_000);
    const window = superuser(NOW - 29 * DAY, NOW + 20 * 60_000);
    expect(planRead(window.from.getTime(), window.to.getTime(), await readRollupState(db), true).open).not.toBeNull();
    const before = await readUsage(db, window, [], 'day', 1);
    // The node's journal replayed: the real records replace the estimates (the usage writer's upsert), with another
    // model, latency, cost and an error for one of them.
    for (const [i, [id, at]] of lost.entries()) {
      await db.query(
        `INSERT INTO usage_records (record_id, at, key_id, team_id, model, served_model, account_id, client_style, status, error_code,
           input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usage_source, latency_ms, cost_usd, stream, expires_at)
         VALUES ($1, $2, 'key_0_1', 'team_0', 'model_1', 'model_2', 'acc_1', 'chat', 200, $3, 7000, 1200, 10, 0, 'reported', 61000, 0.25, true, $2::timestamptz + interval '90 days')
         ON CONFLICT (record_id, expires_at) DO UPDATE SET served_model = EXCLUDED.served_model, error_code = EXCLUDED.error_code,
           input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens, cache_read_tokens = EXCLUDED.cache_read_tokens,
           usage_source = EXCLUDED.usage_source, latency_ms = EXCLUDED.latency_ms, cost_usd = EXCLUDED.cost_usd, written_xid = DEFAULT
         WHERE usage_records.error_code = 'node_lost' AND usage_records.usage_source = 'estimated'`,
        [id, new Date(at), i === 0 ? 'stream_error' : null],
      );
    }
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records_replaced')).rows[0].n).toBe(2);
    const after = await readUsage(db, window, [], 'day', 1);
    expect(after.total.calls).toBe(before.total.calls);
    expect(after.total.input_tokens).toBe(before.total.input_tokens + 2 * 2000);
    await expectSameAsRaw(window);
    await expectSameAsRaw({ ...member(NOW - 29 * DAY, NOW + 20 * 60_000), teamId: 'team_0' });
    // The next run recomputes their hours and forgets the earlier versions.
    await rollUpUsage(db, NOW + 14 * 60_000);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records_replaced')).rows[0].n).toBe(0);
    await expectSameAsRaw(window);
    await expectBlocksSumTheirDays();
  }, 120_000);

  // The embedded database has one connection: no transaction can be open beside the job's.
  it.skipIf(!REAL_PG)('see a row whose transaction was open while the job ran, and do not double count overlapping runs', async () => {
    const before = await independentTotal(0, NOW + 2 * HOUR);
    // The open transaction holds a late row (its xid is below the job's snapshot horizon, not visible to it).
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let inserted!: () => void;
    const insertedP = new Promise<void>((resolve) => (inserted = resolve));
    const open = db.tx(async (q) => {
      await generateUsageRecords(q, 50, NOW - 3 * DAY, NOW - 3 * DAY + HOUR);
      // And calls in the hour the run rolls up so far (into its open rows).
      await generateUsageRecords(q, 5, Math.floor((NOW + HOUR) / HOUR) * HOUR, NOW + HOUR);
      inserted();
      await committed;
    });
    await insertedP;
    try {
      await rollUpUsage(db, NOW + HOUR + 60_000);
    } finally {
      commit();
      await open;
    }
    const after = await readUsage(db, superuser(0, NOW + 2 * HOUR), [], 'day', 1);
    expect(planRead(0, NOW + 2 * HOUR, await readRollupState(db), true).open).not.toBeNull();
    expect(after.total.calls).toBe(before.calls + 55);
    await expectSameAsRaw(superuser(NOW - 29 * DAY, NOW + HOUR + 60_000));
    // Two runs at once (two nodes): one waits out or skips, the other recomputes; never twice counted.
    await generateUsageRecords(db, 300, NOW - 5 * DAY, NOW + HOUR);
    await Promise.all([rollUpUsage(db, NOW + HOUR + 120_000), rollUpUsage(db, NOW + HOUR + 120_000), rollUpUsage(db, NOW + 2 * HOUR)]);
    await rollUpUsage(db, NOW + 2 * HOUR);
    await expectBlocksSumTheirDays();
    const raw = await independentTotal(0, Math.floor((NOW + 2 * HOUR) / HOUR) * HOUR);
    const inRollups = await db.query<{ n: number }>("SELECT sum(calls)::int AS n FROM usage_rollups WHERE period = 'hour'");
    expect(inRollups.rows[0].n).toBe(raw.calls);
    await expectSameAsRaw(superuser(NOW - 29 * DAY, NOW + 2 * HOUR));
  }, 120_000);

  it('keep the visibility rules: team, own keys of others only where the caller is an admin, one key', async () => {
    const f = member(NOW - 29 * DAY, NOW + 2 * HOUR);
    await expectSameAsRaw(f);
    await expectSameAsRaw(keyOnly(NOW - 29 * DAY, NOW + 2 * HOUR));
    await expectSameAsRaw(admin(NOW - 29 * DAY, NOW + 2 * HOUR));
    await expectSameAsRaw({ ...f, teamId: 'team_1' });
    await expectSameAsRaw({ ...f, teamId: 'team_0' });
    // Which of these read the rows summed per team (the others read every hourly row).
    expect([superuser(0, 1), admin(0, 1), { ...f, teamId: 'team_1' }, f, { ...f, teamId: 'team_0' }, keyOnly(0, 1)].map(seesWholeTeams)).toEqual([true, true, true, false, false, false]);
    const keys = (await readUsage(db, f, ['key'], 'day', 5000)).groups.map((g) => g.g0);
    expect(keys).not.toContain('key_0_0');
    expect(keys).toContain('key_0_1');
    expect(keys).toContain('key_1_0');
    expect(keys.every((k) => k!.startsWith('key_0_') || k!.startsWith('key_1_'))).toBe(true);
  }, 120_000);
});
