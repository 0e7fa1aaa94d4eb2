/**
 * Retention of error data, a scheduler job (leader node only, every 10 minutes):
 *
 * - events received more than the project's `retention_days` ago are deleted, in batches of a few thousand rows
 *   (each batch its own short statement, so the ingest writer is never blocked for long);
 * - hourly counts and ingest outcomes (the stats) older than 90 days are deleted the same way;
 * - issues, their counters (count, people, first/last seen and release) and releases stay.
 *
 * Times come from ctx.clock, so tests move a ManualClock instead of waiting. Events are looked up through
 * (project_id, received_at), the index the events table is shaped around.
 */
import type { AppContext } from '../../core/context.ts';
import { deleteInBatches } from '../../core/db/delete-in-batches.ts';
import { deleteExpiredRows, existingTables } from '../../core/db/partitions.ts';
import type { Job } from '../../core/scheduler.ts';
import { HOURLY_KEPT_DAYS } from './issue-hourly.ts';

export const RETENTION_JOB = 'errors.retention';
export const RETENTION_EVERY_MS = 10 * 60_000;
export const RETENTION_BATCH = 5000;
const DAY_MS = 86_400_000;

export interface RetentionResult {
  events: number;
  hourly: number;
  /** Rows of ingest_outcomes (the stats), kept as long as the hourly counts. */
  outcomes: number;
}

export function retentionJob(batch = RETENTION_BATCH): Job {
  return {
    name: RETENTION_JOB,
    everyMs: RETENTION_EVERY_MS,
    run: async (ctx) => {
      const r = await runRetention(ctx, batch);
      if (r.events || r.hourly || r.outcomes) ctx.log.info({ events: r.events, hourly: r.hourly, outcomes: r.outcomes }, 'error retention deleted old rows');
    },
  };
}

/**
 * Deletes in batches until nothing past retention is left; returns how many rows went. The events and outcomes
 * tables are partitioned by day of expiry, and whole partitions are dropped by the partitions job
 * (partitions-job.ts); row by row go only what lives outside a day partition: rows of the table from before
 * partitioning (its rows all share one expiry, their real retention is applied here until it is dropped), and rows
 * already expired in today's partition or waiting in the default one. Each is deleted through its own table (a
 * ctid names a row within one table only), and so are the claimed event ids whose event has expired.
 */
export async function runRetention(ctx: AppContext, batch = RETENTION_BATCH): Promise<RetentionResult> {
  const now = ctx.clock.now();
  const result: RetentionResult = { events: 0, hourly: 0, outcomes: 0 };
  const projects = await ctx.db.query<{ id: number; retention_days: number }>('SELECT id, retention_days FROM projects ORDER BY id');
  const legacy = (await existingTables(ctx.db, ['events_legacy'])).length > 0;
  for (const p of legacy ? projects.rows : []) {
    const cutoff = new Date(now - p.retention_days * DAY_MS);
    result.events += await deleteInBatches(() => ctx.db.query(
      `DELETE FROM events_legacy WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM events_legacy WHERE project_id = $1 AND received_at < $2 LIMIT $3))`,
      [p.id, cutoff, batch],
    ), batch);
  }
  result.events += await deleteExpiredRows(ctx.db, 'events', now, batch);
  await deleteInBatches(() => ctx.db.query(
    `DELETE FROM event_ids WHERE ctid = ANY(ARRAY(SELECT ctid FROM event_ids WHERE expires_at <= $1 LIMIT $2))`,
    [new Date(now), batch],
  ), batch);
  const hourCutoff = new Date(now - HOURLY_KEPT_DAYS * DAY_MS);
  result.hourly = await deleteInBatches(() => ctx.db.query(
    `DELETE FROM issue_hourly WHERE ctid = ANY(ARRAY(SELECT ctid FROM issue_hourly WHERE hour < $1 LIMIT $2))`,
    [hourCutoff, batch],
  ), batch);
  if ((await existingTables(ctx.db, ['ingest_outcomes_legacy'])).length > 0) {
    result.outcomes += await deleteInBatches(() => ctx.db.query(
      `DELETE FROM ingest_outcomes_legacy WHERE ctid = ANY(ARRAY(SELECT ctid FROM ingest_outcomes_legacy WHERE hour < $1 LIMIT $2))`,
      [hourCutoff, batch],
    ), batch);
  }
  result.outcomes += await deleteExpiredRows(ctx.db, 'ingest_outcomes', now, batch);
  return result;
}

