/**
 * Retention of the outbox and of webhook deliveries, a scheduler job (leader node only, every hour):
 *
 * 1. deliveries created more than `webhookDeliveryRetentionDays` ago go, with their attempts (ON DELETE CASCADE),
 *    unless they are still `pending` (waiting for a first attempt or a retry): an unfinished delivery is never lost;
 * 2. then events (outbox rows) created more than `outboxRetentionDays` ago go once they are fully handled: the
 *    dispatcher has fanned them out (dispatched_at set) and none of their deliveries is left. Deleting an event
 *    would cascade to its deliveries, so an event stays as long as any of its delivery records does (pending ones,
 *    and delivered or failed ones that step 1 keeps), and the delivery period holds whatever the outbox period is.
 *
 * Rows go in batches (core/db/delete-in-batches.ts: picked first, then deleted by primary key). Both tables are
 * searched through their created_at indexes (migration 20261122T0440-outbox-retention). Finding the events without deliveries still reads the older events that have some (with the default periods,
 * those of the last 30 days that went to a webhook): about a second per two million such events, hence a run every
 * hour rather than every few minutes, which a period counted in days does not need. Times come from ctx.clock, so
 * tests move a ManualClock instead of waiting.
 */
import type { AppContext } from '../../core/context.ts';
import { deleteInBatches } from '../../core/db/delete-in-batches.ts';
import type { Job } from '../../core/scheduler.ts';

export const OUTBOX_RETENTION_JOB = 'webhooks.retention';
export const OUTBOX_RETENTION_EVERY_MS = 60 * 60_000;
export const OUTBOX_RETENTION_BATCH = 5000;
const DAY_MS = 86_400_000;

export interface OutboxRetentionResult {
  deliveries: number;
  events: number;
}

const DELETE_DELIVERIES = `
DELETE FROM webhook_deliveries WHERE id = ANY(ARRAY(
  SELECT id FROM webhook_deliveries WHERE created_at < $1 AND state <> 'pending' LIMIT $2))`;

// A row is dispatched in the same transaction that inserts its deliveries, and a delivery never becomes pending
// again, so "dispatched and no delivery left" cannot change under this statement.
const DELETE_EVENTS = `
DELETE FROM outbox WHERE id = ANY(ARRAY(
  SELECT o.id FROM outbox o
   WHERE o.created_at < $1 AND o.dispatched_at IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.outbox_id = o.id)
   LIMIT $2))`;

export function outboxRetentionJob(batch = OUTBOX_RETENTION_BATCH): Job {
  return {
    name: OUTBOX_RETENTION_JOB,
    everyMs: OUTBOX_RETENTION_EVERY_MS,
    run: async (ctx) => {
      const r = await runOutboxRetention(ctx, batch);
      if (r.deliveries || r.events) ctx.log.info({ deliveries: r.deliveries, events: r.events }, 'outbox retention deleted old rows');
    },
  };
}

/** Deletes in batches until nothing past retention is left; returns how many rows went. */
export async function runOutboxRetention(ctx: AppContext, batch = OUTBOX_RETENTION_BATCH): Promise<OutboxRetentionResult> {
  const now = ctx.clock.now();
  const deliveryCutoff = new Date(now - ctx.config.webhookDeliveryRetentionDays * DAY_MS);
  const eventCutoff = new Date(now - ctx.config.outboxRetentionDays * DAY_MS);
  const deliveries = await deleteInBatches(() => ctx.db.query(DELETE_DELIVERIES, [deliveryCutoff, batch]), batch);
  const events = await deleteInBatches(() => ctx.db.query(DELETE_EVENTS, [eventCutoff, batch]), batch);
  return { deliveries, events };
}
