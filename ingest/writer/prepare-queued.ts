/**
 * The prepared form of a writer batch: events prepared at the fast path (QueuedEvent.prepared) are taken as they
 * are; only the others (replayed from the journal, claimed from the inbox, or not preparable there) go to the
 * prepare pool, which parses them from their bytes.
 */
import { DOCUMENT_SEPARATOR, joinRows, readyEvent, type EventRowsText, type PreparedBatch, type ReadyEvent } from './prepare-batch.ts';
import type { PrepareInput } from './prepare-event.ts';
import type { PreparePool } from './prepare-pool.ts';
import type { QueuedEvent } from './queued-event.ts';

/** What preparing a queued event needs besides its payload. */
export function prepareInputOf(e: QueuedEvent): PrepareInput {
  const input: PrepareInput = {
    projectId: e.project.id, scrubKeys: e.project.scrubKeys, retentionDays: e.project.retentionDays, eventId: e.eventId, receivedAt: e.receivedAt,
  };
  if (e.sentAt !== undefined) input.sentAt = e.sentAt;
  if (e.clientIp !== undefined) input.clientIp = e.clientIp;
  return input;
}

/**
 * Prepares a queued event from the payload the fast path parsed, or undefined when that fails (the writer then
 * tries again from the bytes and refuses the event for its content, as for any other).
 */
export function prepareParsed(e: QueuedEvent, payload: Record<string, unknown>): ReadyEvent | undefined {
  try {
    return readyEvent(prepareInputOf(e), payload);
  } catch {
    return undefined;
  }
}

/** `rows` as text when nothing went to the pool, else joined with the pool's bytes. */
export type QueuedBatch = Omit<PreparedBatch, 'rows'> & { rows: EventRowsText };

export async function prepareQueued(pool: PreparePool, events: readonly QueuedEvent[]): Promise<QueuedBatch> {
  const metas: QueuedBatch['metas'] = [];
  const ready: ReadyEvent[] = [];
  const rest: number[] = [];
  events.forEach((e, index) => {
    if (e.prepared) {
      metas.push({ ...e.prepared.meta, index });
      ready.push(e.prepared);
    } else rest.push(index);
  });
  if (rest.length === 0) return { metas, rows: joinRows(ready), failures: [] };
  const pooled = await pool.prepare(rest.map((i) => events[i]));
  for (const m of pooled.metas) metas.push({ ...m, index: rest[m.index] });
  metas.sort((a, b) => a.index - b.index);
  const failures = pooled.failures.map((f) => ({ ...f, index: rest[f.index] }));
  if (ready.length === 0) return { metas, rows: pooled.rows, failures };
  // Both kinds: the pool's rows follow the others (the order of the rows needs only to match between the two parts).
  const mine = joinRows(ready);
  const columns = pooled.rows.columns.toString('utf8').slice(1, -1);
  const documents = pooled.rows.documents.toString('utf8');
  return {
    metas,
    rows: {
      columns: columns === '' ? mine.columns : `${mine.columns.slice(0, -1)},${columns}]`,
      documents: columns === '' ? mine.documents : `${mine.documents}${DOCUMENT_SEPARATOR}${documents}`,
    },
    failures,
  };
}
