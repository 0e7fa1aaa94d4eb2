/**
 * One writer batch: prepare every event (parse, scrub, normalise, group: CPU, in the prepare pool's worker thread,
 * outside the transaction), then one transaction that stores the events with their issue changes and outbox rows,
 * and adds the outcome counts. An event that cannot be prepared (it passed the fast path's checks, so this is not
 * expected) is logged by id and left out; it never takes the batch down.
 */
import type { AppContext } from '../../core/context.ts';
import type { OutcomeRow } from '../outcome-counter.ts';
import type { WriteBatch } from './batch-writer.ts';
import type { PreparePool } from './prepare-pool.ts';
import type { QueuedEvent } from './queued-event.ts';
import { storeEvents, type PreparedEvent } from './store-events.ts';
import { writeOutcomes } from './write-outcomes.ts';

export function createWriteBatch(ctx: AppContext, pool: PreparePool): WriteBatch {
  return async (events: QueuedEvent[], outcomes: OutcomeRow[]) => {
    const unique = dedupe(events);
    const batch = unique.length > 0 ? await pool.prepare(unique) : undefined;
    for (const f of batch?.failures ?? []) {
      ctx.log.error({ event_id: f.eventId, project: unique[f.index].project.id, reason: f.message }, 'ingest writer could not prepare an event; it is not stored');
    }
    const prepared: PreparedEvent[] = (batch?.metas ?? []).map((m) => ({ ...m, project: unique[m.index].project }));
    if (prepared.length === 0 && outcomes.length === 0) return;
    await ctx.db.tx(async (q) => {
      // pg takes the bytes as they are; the embedded database wants text.
      const rows = ctx.db.kind === 'postgres' ? batch?.rows : batch?.rows.toString('utf8');
      if (rows && prepared.length > 0) await storeEvents(q, prepared, rows, new Date(ctx.clock.now()), ctx.config.publicUrl);
      await writeOutcomes(q, outcomes);
    });
  };
}

/** One event per (project, event_id): a repeat inside the batch is dropped here already. */
function dedupe(events: QueuedEvent[]): QueuedEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => {
    const key = `${e.project.id}:${e.eventId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
