/**
 * One writer batch: prepare every event not prepared at the fast path already (parse, scrub, normalise, group: CPU
 * in the prepare pool's worker thread, outside the transaction; prepare-queued.ts), then one transaction that
 * stores the events with their issue changes and outbox rows, and adds the outcome counts. An event that cannot be
 * prepared (it passed the fast path's checks, so this is not expected) is logged by id and returned as rejected; it
 * never takes the batch down. A repeated (project, event_id) (within the batch, or already stored: a replay or a
 * recovered inbox row) is skipped and counts once. The same transaction deletes the events' ingest_inbox rows
 * (ingest-inbox.ts), so an event leaves the inbox exactly when it is stored (or refused for its content).
 */
import type { AppContext } from '../../core/context.ts';
import type { RowRejection } from '../../core/writes/durable-writer.ts';
import type { OutcomeRow } from '../outcome-counter.ts';
import type { WriteBatch } from './batch-writer.ts';
import type { PreparePool } from './prepare-pool.ts';
import type { QueuedEvent } from './queued-event.ts';
import { finishBatch } from './finish-batch.ts';
import { prepareQueued } from './prepare-queued.ts';
import { storeEvents, type PreparedEvent } from './store-events.ts';

export function createWriteBatch(ctx: AppContext, pool: PreparePool): WriteBatch {
  return async (events: QueuedEvent[], outcomes: OutcomeRow[], inboxIds: readonly string[] = []) => {
    const positions = uniquePositions(events);
    const unique = positions.map((i) => events[i]);
    const batch = unique.length > 0 ? await prepareQueued(pool, unique) : undefined;
    const rejected: RowRejection[] = [];
    for (const f of batch?.failures ?? []) {
      ctx.log.error({ event_id: f.eventId, project: unique[f.index].project.id, reason: f.message }, 'ingest writer could not prepare an event; it is not stored');
      rejected.push({ index: positions[f.index], reason: f.message });
    }
    const prepared: PreparedEvent[] = (batch?.metas ?? []).map((m) => ({ ...m, project: unique[m.index].project }));
    if (prepared.length === 0 && outcomes.length === 0 && inboxIds.length === 0) return rejected;
    await ctx.db.tx(async (q) => {
      // pg (a server or the embedded default's child Postgres) takes the bytes as they are; PGlite wants text.
      const rows = batch && (ctx.db.textParams ? { columns: batch.rows.columns.toString(), documents: batch.rows.documents.toString() } : batch.rows);
      const now = new Date(ctx.clock.now());
      const { updates, outbox } = rows && prepared.length > 0 ? await storeEvents(q, prepared, rows, now, { publicUrl: ctx.config.publicUrl, documents: ctx.config.eventDocuments }) : { updates: [], outbox: [] };
      await finishBatch(q, { updates, outbox, outcomes, inboxIds }, now);
    });
    return rejected;
  };
}

/** The positions of the first event of each (project, event_id): a repeat inside the batch is dropped here already. */
function uniquePositions(events: QueuedEvent[]): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  events.forEach((e, i) => {
    const key = `${e.project.id}:${e.eventId}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(i);
  });
  return out;
}
