/**
 * One writer batch: prepare every event (scrub, normalise, group: CPU, outside the transaction), then one
 * transaction that stores the events with their issue changes and outbox rows, and adds the outcome counts.
 * An event that cannot be prepared (it passed the fast path's checks, so this is not expected) is logged by id
 * and left out; it never takes the batch down.
 */
import type { AppContext } from '../../core/context.ts';
import type { OutcomeRow } from '../outcome-counter.ts';
import type { WriteBatch } from './batch-writer.ts';
import { prepareEvent, type PreparedEvent } from './prepare-event.ts';
import type { QueuedEvent } from './queued-event.ts';
import { storeEvents } from './store-events.ts';
import { writeOutcomes } from './write-outcomes.ts';

export function createWriteBatch(ctx: AppContext): WriteBatch {
  return async (events: QueuedEvent[], outcomes: OutcomeRow[]) => {
    const prepared = prepareAll(ctx, events);
    if (prepared.length === 0 && outcomes.length === 0) return;
    await ctx.db.tx(async (q) => {
      if (prepared.length > 0) await storeEvents(q, prepared, new Date(ctx.clock.now()), ctx.config.publicUrl);
      await writeOutcomes(q, outcomes);
    });
  };
}

/** Prepared events, one per (project, event_id): a repeat inside the batch is dropped here already. */
function prepareAll(ctx: AppContext, events: QueuedEvent[]): PreparedEvent[] {
  const seen = new Set<string>();
  const out: PreparedEvent[] = [];
  for (const e of events) {
    const key = `${e.project.id}:${e.eventId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    try {
      out.push(prepareEvent(e));
    } catch (err) {
      ctx.log.error({ err, event_id: e.eventId, project: e.project.id }, 'ingest writer could not prepare an event; it is not stored');
    }
  }
  return out;
}
