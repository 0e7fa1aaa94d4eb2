/**
 * The usage-rollups job (the scheduler's leader, every minute): keeps usage_rollups (hourly and daily) equal to
 * usage_records for every hour before rolled_until (the start of the current hour). Each run, in one REPEATABLE READ
 * transaction (one snapshot for everything it reads and records):
 *  - finds the hours to recompute: those newly complete since the last run, and those touched by rows of
 *    transactions the last run's snapshot may not have seen (written_xid >= its xmin: written since, or late, e.g.
 *    a node's journal replayed after an outage with the calls' original times);
 *  - recomputes each such hour whole from usage_records (delete its rows, insert the aggregate, and its rows summed
 *    per team, 'hour_team'), then each day that holds one of them or became complete, from its hours (and its rows
 *    summed over accounts, 'day_key');
 *  - recomputes the blocks of whole days (2, 4, 8 and 16 days, aligned) that hold a recomputed day, from the
 *    blocks half their size, so that readers add up a few blocks instead of every day of a long window;
 *  - recomputes the records from rolled_until on (the current hour so far) into their own table,
 *    usage_rollups_open ('hour' rows, and summed as the days are: 'hour_key', 'hour_model', 'hour_team'), replacing
 *    the last run's, so that readers read raw only the
 *    records this run did not see (about a minute of calls) instead of the whole current hour;
 *  - deletes the earlier versions of replaced records (usage_records_replaced) whose replacement it saw;
 *  - records rolled_until, open_until and the snapshot, so that readers take rows it did not see from usage_records
 *    (and take back out the earlier versions of records replaced since, which the rollups counted).
 * Recomputing whole buckets makes a repeated or overlapping run harmless; a session advisory lock keeps two nodes
 * from running at once, and the unique index on the rollups would refuse a double count anyway. The snapshot's
 * xmin is the oldest transaction open on the server: a long one makes runs recompute more, never count wrong.
 */
import type { Db, Queryable } from '../../core/db/db.ts';
import { LOCKS } from '../../core/db/db.ts';
import type { Job } from '../../core/scheduler.ts';
import { latencyBucketSql } from './latency-histogram.ts';
import { BLOCK_SPANS, blockStart, DAY_MS, HOUR_MS } from './usage-read-plan.ts';

export const USAGE_ROLLUPS_JOB = 'usage-rollups';

const COLUMNS = `period, bucket, team_id, key_id, model, account_id, calls, errors, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, latency_histogram,
  compressed_calls, compression_tokens_before, compression_tokens_after`;
/** The compression sums of rollup rows r, summed again. */
const COMPRESSION_SUMS = 'sum(r.compressed_calls), sum(r.compression_tokens_before), sum(r.compression_tokens_after)';
const DIMS = 'team_id, key_id, model, account_id';
/** Every figure of the rollup rows r, summed (in COLUMNS' order after the dimensions). */
const SUMS = `sum(r.calls), sum(r.errors), sum(r.input_tokens), sum(r.output_tokens), sum(r.cache_read_tokens), sum(r.cache_write_tokens),
  sum(r.cost_usd), sum(r.latency_histogram), ${COMPRESSION_SUMS}`;

/** Hourly rows (into `table`: usage_rollups, or usage_rollups_open) from the usage records u of `from` where `cond`. */
const insertHours = (from: string, cond: string, table = 'usage_rollups') => `INSERT INTO ${table} (${COLUMNS})
  SELECT 'hour', bucket, ${DIMS}, sum(calls), sum(errors), sum(i), sum(o), sum(cr), sum(cw), sum(cost),
         sum(calls * (SELECT w.weight FROM usage_latency_weights w WHERE w.bucket = x.lb)), sum(cc), sum(cb), sum(ca)
    FROM (SELECT date_trunc('hour', u.at, 'UTC') AS bucket, u.team_id, u.key_id, coalesce(u.served_model, u.model) AS model,
                 u.account_id, ${latencyBucketSql('u.latency_ms')} AS lb, count(*) AS calls,
                 count(*) FILTER (WHERE u.status >= 400 OR u.error_code IS NOT NULL) AS errors,
                 sum(u.input_tokens) AS i, sum(u.output_tokens) AS o, sum(u.cache_read_tokens) AS cr,
                 sum(u.cache_write_tokens) AS cw, sum(u.cost_usd::numeric) AS cost,
                 count(*) FILTER (WHERE u.compression_mode = 'on') AS cc,
                 coalesce(sum(u.compression_tokens_before) FILTER (WHERE u.compression_mode = 'on'), 0) AS cb,
                 coalesce(sum(u.compression_tokens_after) FILTER (WHERE u.compression_mode = 'on'), 0) AS ca
            FROM ${from} WHERE ${cond} GROUP BY 1, 2, 3, 4, 5, 6) x
   GROUP BY bucket, ${DIMS}`;

/** Daily rows from the hourly rollups r of `from` where `cond`. */
const insertDays = (from: string, cond: string) => `INSERT INTO usage_rollups (${COLUMNS})
  SELECT 'day', date_trunc('day', r.bucket, 'UTC'), r.team_id, r.key_id, r.model, r.account_id, ${SUMS}
    FROM ${from} WHERE r.period = 'hour' AND ${cond}
   GROUP BY 2, r.team_id, r.key_id, r.model, r.account_id`;

/** The 'day_key' rows (summed over accounts) of the daily rows r of `from`. */
const insertDayKeys = (from: string) => `INSERT INTO usage_rollups (${COLUMNS})
  SELECT 'day_key', r.bucket, r.team_id, r.key_id, r.model, NULL, ${SUMS}
    FROM ${from} WHERE r.period = 'day'
   GROUP BY r.bucket, r.team_id, r.key_id, r.model`;

/** The 'day_model' rows (summed over keys and accounts: per team and model) of the daily rows r of `from`. */
const insertDayModels = (from: string) => `INSERT INTO usage_rollups (${COLUMNS})
  SELECT 'day_model', r.bucket, r.team_id, '', r.model, NULL, ${SUMS}
    FROM ${from} WHERE r.period = 'day'
   GROUP BY r.bucket, r.team_id, r.model`;

/** The 'hour_team' rows (summed over keys, models and accounts) of the hourly rows r of `from` (into `table`). */
const insertHourTeams = (from: string, table = 'usage_rollups') => `INSERT INTO ${table} (${COLUMNS})
  SELECT 'hour_team', r.bucket, r.team_id, '', '', NULL, ${SUMS}
    FROM ${from} WHERE r.period = 'hour'
   GROUP BY r.bucket, r.team_id`;

/**
 * The open 'hour' rows summed over accounts ('hour_key') and per team and model ('hour_model'), as the days are
 * ('day_key', 'day_model'), so that a report reads the current hour at the grain it reads the days.
 */
const insertOpenGrains = `INSERT INTO usage_rollups_open (${COLUMNS})
  SELECT CASE WHEN grouping(r.key_id) = 0 THEN 'hour_key' ELSE 'hour_model' END, r.bucket, r.team_id,
         CASE WHEN grouping(r.key_id) = 0 THEN r.key_id ELSE '' END, r.model, NULL, ${SUMS}
    FROM usage_rollups_open r WHERE r.period = 'hour'
   GROUP BY GROUPING SETS ((r.bucket, r.team_id, r.key_id, r.model), (r.bucket, r.team_id, r.model))`;

/** The daily periods that are also kept summed over blocks of days. */
const BLOCK_PERIODS = ['day', 'day_key', 'day_model'] as const;

/**
 * The rows of `period`_`span` (a block of span days) from the rows of the next smaller span ('day…' for 2) within
 * each block starting at the times of $1.
 */
const insertBlocks = (period: string, span: number) => `INSERT INTO usage_rollups (${COLUMNS})
  SELECT '${period}_${span}', t.s, r.team_id, r.key_id, r.model, r.account_id, ${SUMS}
    FROM unnest($1::timestamptz[]) AS t(s)
    JOIN usage_rollups r ON r.period = '${span === 2 ? period : `${period}_${span / 2}`}' AND r.bucket >= t.s AND r.bucket < t.s + interval '${span} days'
   GROUP BY t.s, r.team_id, r.key_id, r.model, r.account_id`;

/**
 * Recomputes the blocks of days (BLOCK_SPANS) that hold any of `days`, among those that end by dayEnd (whole days
 * only: the current day's rows change every hour), smallest span first; all of them when `days` is null.
 */
async function rollUpBlocks(q: Queryable, days: readonly number[] | null, dayEnd: number): Promise<void> {
  let from = days;
  if (from === null) {
    await q.query(`DELETE FROM usage_rollups WHERE period IN (${BLOCK_PERIODS.flatMap((p) => BLOCK_SPANS.map((n) => `'${p}_${n}'`)).join(', ')})`);
    const first = (await q.query<{ t: Date | null }>("SELECT min(bucket) AS t FROM usage_rollups WHERE period = 'day'")).rows[0]?.t;
    const all: number[] = [];
    if (first) for (let d = new Date(first).getTime(); d < dayEnd; d += DAY_MS) all.push(d);
    from = all;
  }
  for (const span of [...BLOCK_SPANS].sort((a, b) => a - b)) {
    const starts = [...new Set(from.map((d) => blockStart(d, span)))].filter((b) => b + span * DAY_MS <= dayEnd).map(iso);
    if (starts.length === 0) continue;
    const periods = BLOCK_PERIODS.map((p) => `'${p}_${span}'`).join(', ');
    if (days !== null) await q.query(`DELETE FROM usage_rollups WHERE period IN (${periods}) AND bucket = ANY($1::timestamptz[])`, [starts]);
    for (const p of BLOCK_PERIODS) await q.query(insertBlocks(p, span), [starts]);
  }
}

export interface RollupRun {
  hours: number;
  days: number;
  rolledUntil: Date;
  /** The records from rolledUntil on that the run saw are in usage_rollups_open, all of them before this. */
  openUntil: Date;
}

const iso = (t: number) => new Date(t).toISOString();
const toTimes = (rows: Array<{ t: Date | string }>) => rows.map((r) => new Date(r.t).getTime());

async function rollUp(q: Queryable, now: number): Promise<RollupRun> {
  await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
  const snap = (await q.query<{ snapshot: string; xmin: string }>('SELECT pg_current_snapshot()::text AS snapshot, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin')).rows[0];
  const prev = (await q.query<{ rolled_until: Date; xmin: string; days_until: Date | null; snapshot: string; blocks_snapshot: string | null }>(
    'SELECT rolled_until, snapshot_xmin::text AS xmin, days_until, snapshot, blocks_snapshot FROM usage_rollup_state WHERE id = 1',
  )).rows[0];
  const prevUntil = prev ? new Date(prev.rolled_until).getTime() : null;
  // Never backwards (a node whose clock is behind): hours once rolled up stay so.
  const until = Math.max(Math.floor(now / HOUR_MS) * HOUR_MS, prevUntil ?? 0);
  const dayEnd = Math.floor(until / DAY_MS) * DAY_MS;
  let hours: number[];
  let days: number[];
  if (prevUntil === null) {
    // First run: everything before rolled_until, in one pass.
    await q.query('DELETE FROM usage_rollups');
    await q.query(insertHours('usage_records u', 'u.at < $1'), [iso(until)]);
    await q.query(insertHourTeams('usage_rollups r'));
    await q.query(insertDays('usage_rollups r', 'r.bucket < $1'), [iso(until)]);
    await q.query(insertDayKeys('usage_rollups r'));
    await q.query(insertDayModels('usage_rollups r'));
    hours = toTimes((await q.query<{ t: Date }>("SELECT DISTINCT bucket AS t FROM usage_rollups WHERE period = 'hour'")).rows);
    days = toTimes((await q.query<{ t: Date }>("SELECT DISTINCT bucket AS t FROM usage_rollups WHERE period = 'day'")).rows);
  } else {
    // (And the hours of records replaced since: their earlier version's time may differ from the new one's.)
    const touched = await q.query<{ t: Date }>(
      `SELECT DISTINCT date_trunc('hour', u.at, 'UTC') AS t FROM usage_records u WHERE u.written_xid >= $1::bigint AND u.at < $2
       UNION SELECT DISTINCT date_trunc('hour', u.at, 'UTC') FROM usage_records u WHERE u.at >= $3 AND u.at < $2
       UNION SELECT DISTINCT date_trunc('hour', u.at, 'UTC') FROM usage_records_replaced x CROSS JOIN LATERAL jsonb_populate_record(NULL::usage_records, x.old) u
        WHERE u.at < $2`,
      [prev.xmin, iso(until), iso(prevUntil)],
    );
    hours = toTimes(touched.rows);
    const dayset = new Set(hours.map((h) => Math.floor(h / DAY_MS) * DAY_MS));
    // Days that became complete since the last run, even when none of their hours changed; the current day when
    // rolled_until moved (or an earlier build did not keep its rows).
    for (let d = Math.floor(prevUntil / DAY_MS) * DAY_MS; d < dayEnd; d += DAY_MS) dayset.add(d);
    const daysUntil = prev.days_until ? new Date(prev.days_until).getTime() : null;
    if (dayEnd < until && (daysUntil !== until || prevUntil !== until)) dayset.add(dayEnd);
    days = [...dayset].filter((d) => d < until).sort((a, b) => a - b);
    if (hours.length > 0) {
      const list = hours.map(iso);
      await q.query("DELETE FROM usage_rollups WHERE period IN ('hour', 'hour_team') AND bucket = ANY($1::timestamptz[])", [list]);
      await q.query(insertHours("unnest($1::timestamptz[]) AS t(h) JOIN usage_records u ON u.at >= t.h AND u.at < t.h + interval '1 hour'", 'true'), [list]);
      await q.query(insertHourTeams('unnest($1::timestamptz[]) AS t(h) JOIN usage_rollups r ON r.bucket = t.h'), [list]);
    }
    if (days.length > 0) {
      const list = days.map(iso);
      await q.query("DELETE FROM usage_rollups WHERE period IN ('day', 'day_key', 'day_model') AND bucket = ANY($1::timestamptz[])", [list]);
      await q.query(insertDays("unnest($1::timestamptz[]) AS t(d) JOIN usage_rollups r ON r.bucket >= t.d AND r.bucket < t.d + interval '1 day'", 'true'), [list]);
      await q.query(insertDayKeys('unnest($1::timestamptz[]) AS t(d) JOIN usage_rollups r ON r.bucket = t.d'), [list]);
      await q.query(insertDayModels('unnest($1::timestamptz[]) AS t(d) JOIN usage_rollups r ON r.bucket = t.d'), [list]);
    }
  }
  // The earlier versions of replaced records whose replacement this snapshot sees: their hours hold the new version
  // now, and readers of this snapshot no longer take them out.
  await q.query('DELETE FROM usage_records_replaced WHERE pg_visible_in_snapshot(replaced_xid::text::xid8, $1::pg_snapshot)', [snap.snapshot]);
  // The blocks of whole days: those holding a recomputed day, or all of them after a first run or a run of an
  // earlier build (which recomputes days, not their blocks).
  await rollUpBlocks(q, prevUntil !== null && prev.blocks_snapshot === prev.snapshot ? days : null, dayEnd);
  // Everything from rolled_until on that this snapshot sees (the current hour so far, and any record a clock ahead
  // put later), replaced whole: readers then read raw only the records this snapshot does not see (written since,
  // or still in flight), as for the rolled hours. open_until bounds their times (whole ms, exclusive): a window
  // ending before it cannot use them.
  await q.query('DELETE FROM usage_rollups_open');
  await q.query(insertHours('usage_records u', 'u.at >= $1', 'usage_rollups_open'), [iso(until)]);
  await q.query(insertHourTeams('usage_rollups_open r', 'usage_rollups_open'));
  await q.query(insertOpenGrains);
  const open = await q.query<{ t: Date | null }>(
    "SELECT date_trunc('milliseconds', max(u.at)) + interval '1 millisecond' AS t FROM usage_records u WHERE u.at >= $1",
    [iso(until)],
  );
  const openUntil = Math.max(until, open.rows[0]?.t ? new Date(open.rows[0].t).getTime() : until);
  await q.query(
    `INSERT INTO usage_rollup_state (id, rolled_until, snapshot, snapshot_xmin, days_until, open_until, open_snapshot, blocks_snapshot, updated_at)
     VALUES (1, $1, $2, $3::bigint, $1, $4, $2, $2, now())
     ON CONFLICT (id) DO UPDATE SET rolled_until = EXCLUDED.rolled_until, snapshot = EXCLUDED.snapshot, snapshot_xmin = EXCLUDED.snapshot_xmin,
       days_until = EXCLUDED.days_until, open_until = EXCLUDED.open_until, open_snapshot = EXCLUDED.open_snapshot,
       blocks_snapshot = EXCLUDED.blocks_snapshot, updated_at = now()`,
    [iso(until), snap.snapshot, snap.xmin, iso(openUntil)],
  );
  return { hours: hours.length, days: days.length, rolledUntil: new Date(until), openUntil: new Date(openUntil) };
}

/** One run; null when another node's run holds the lock (it does the same work). */
export async function rollUpUsage(db: Db, now: number): Promise<RollupRun | null> {
  const release = await db.tryLock(LOCKS.usageRollups);
  if (!release) return null;
  try {
    return await db.tx((q) => rollUp(q, now));
  } finally {
    await release();
  }
}

export function usageRollupsJob(): Job {
  return {
    name: USAGE_ROLLUPS_JOB,
    everyMs: 60_000,
    run: async (ctx) => {
      const r = await rollUpUsage(ctx.db, ctx.clock.now());
      if (r && (r.hours > 0 || r.days > 0)) ctx.log.debug({ ...r }, 'usage rollups recomputed');
    },
  };
}
