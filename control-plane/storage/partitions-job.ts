/**
 * The `partitions` job (the scheduler's leader, hourly, first run a minute after taking the lead): keeps the tables
 * partitioned by day of expiry (core/db/partitions.ts) in shape.
 *
 * 1. Creates ahead the day partitions that today's and tomorrow's rows will land in, for each retention in use:
 *    the projects' retention_days (events), SVC_USAGE_RETENTION_DAYS (usage records), the log_bodies of keys that
 *    keep bodies (call bodies) and the stats' 90 days (ingest outcomes).
 * 2. Creates the partition of every day that rows in the default partition wait for, moving them in (a retention
 *    set since the last run, or a row written before step 1 ran).
 * 3. Drops every partition whose last day of expiry has passed, the pre-partitioning one included.
 *
 * Idempotent and safe on several nodes at once: a partition another node created first is skipped.
 */
import type { AppContext } from '../../core/context.ts';
import {
  covered, createDayPartition, dayOf, daysWaitingInDefault, deleteExpiredRows, dropExpiredPartitions, listPartitions,
  PARTITIONED_TABLES, DAY_MS, type PartitionedTable,
} from '../../core/db/partitions.ts';
import type { Job } from '../../core/scheduler.ts';
import { LOG_BODIES_DAYS } from '../calls/call-bodies.ts';
import { HOURLY_KEPT_DAYS } from '../projects/issue-hourly.ts';

export const PARTITIONS_JOB = 'partitions';
const EVERY_MS = 60 * 60_000;
/** Days ahead of today's rows whose partitions exist before they are needed. */
const AHEAD_DAYS = 1;

export interface PartitionsResult {
  created: string[];
  dropped: string[];
}

export function partitionsJob(): Job {
  return {
    name: PARTITIONS_JOB,
    everyMs: EVERY_MS,
    firstAfterMs: 60_000,
    run: async (ctx) => {
      const r = await maintainPartitions(ctx);
      if (r.created.length || r.dropped.length) ctx.log.info({ created: r.created, dropped: r.dropped }, 'partitions created and dropped');
    },
  };
}

export async function maintainPartitions(ctx: AppContext): Promise<PartitionsResult> {
  const now = ctx.clock.now();
  const result: PartitionsResult = { created: [], dropped: [] };
  for (const table of PARTITIONED_TABLES) {
    const partitions = await listPartitions(ctx.db, table);
    const days = new Set<number>();
    for (const r of await retentionsInUse(ctx, table)) {
      for (let k = 0; k <= AHEAD_DAYS; k++) days.add(dayOf(now + r * DAY_MS) + k * DAY_MS);
    }
    for (const d of await daysWaitingInDefault(ctx.db, table)) days.add(d);
    for (const day of [...days].sort((a, b) => a - b)) {
      if (day + DAY_MS <= now || covered(partitions, day)) continue;
      if (await createDayPartition(ctx.db, table, day)) result.created.push(`${table}:${new Date(day).toISOString().slice(0, 10)}`);
    }
    // Rows of the default partition whose day is over have no partition to move to: they go here.
    await deleteExpiredRows(ctx.db, table, now, 5000);
    result.dropped.push(...(await dropExpiredPartitions(ctx.db, table, now)));
  }
  return result;
}

async function retentionsInUse(ctx: AppContext, table: PartitionedTable): Promise<number[]> {
  switch (table) {
    case 'events':
      return (await ctx.db.query<{ d: number }>('SELECT DISTINCT retention_days AS d FROM projects')).rows.map((r) => r.d);
    case 'usage_records':
      return [ctx.config.usageRetentionDays];
    case 'call_bodies':
      return (await ctx.db.query<{ b: string }>("SELECT DISTINCT log_bodies AS b FROM gateway_keys WHERE log_bodies <> 'off'")).rows
        .map((r) => LOG_BODIES_DAYS[r.b])
        .filter((d) => d !== undefined);
    case 'ingest_outcomes':
      return [HOURLY_KEPT_DAYS];
  }
}
