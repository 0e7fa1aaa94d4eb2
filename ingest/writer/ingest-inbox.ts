/**
 * The ingest_inbox table (migrations/20261124T1320-ingest-inbox.sql): where an event is made durable before its
 * 200. insertInbox is the whole durable commit of a group of events (one statement, its columns as arrays through
 * unnest); the processing transaction deletes the rows of the events it stores (finish-batch.ts); claimExpired takes rows whose
 * node's lease ran out (a node that crashed between the inbox commit and the processing).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../core/db/db.ts';
import type { QueuedEvent } from './queued-event.ts';
import { encodeQueuedEvents, queuedEventCodec } from './queued-event-codec.ts';

/** How long the inserting node has to process its rows before any node's sweep may claim them. */
export const INBOX_LEASE_SECONDS = 30;

// The rows' data travel as one bytea parameter (sent as bytes, not as text) cut by offset and length: no encoding
// of the payloads on either side.
const INSERT = `INSERT INTO ingest_inbox (id, project_id, event_id, received_at, data, claimed_until)
  SELECT id, project_id, event_id, received_at, substring($5::bytea FROM start FOR length), now() + make_interval(secs => ${INBOX_LEASE_SECONDS})
  FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::timestamptz[], $6::int[], $7::int[]) AS t(id, project_id, event_id, received_at, start, length)`;

/** Commits the events to the inbox; returns their row ids, in order. */
export async function insertInbox(db: Db, events: readonly QueuedEvent[]): Promise<string[]> {
  const ids = events.map(() => randomUUID());
  const { bytes, starts, lengths } = encodeQueuedEvents(events);
  // Named: prepared once per connection, then only bound and executed (no parsing or planning per group).
  await db.query(INSERT, [
    ids,
    events.map((e) => e.project.id),
    events.map((e) => e.eventId),
    events.map((e) => new Date(e.receivedAt).toISOString()),
    bytes,
    starts.map((start) => start + 1), // substring counts from 1
    lengths,
  ], { name: 'ingest-inbox-insert' });
  return ids;
}

/** Claims (leases to this node) up to `limit` rows whose lease ran out, oldest first. */
export async function claimExpired(db: Db, limit: number): Promise<Array<{ id: string; event: QueuedEvent }>> {
  const r = await db.query<{ id: string; data: string }>(
    `UPDATE ingest_inbox SET claimed_until = now() + make_interval(secs => ${INBOX_LEASE_SECONDS})
     WHERE id IN (SELECT id FROM ingest_inbox WHERE claimed_until IS NULL OR claimed_until < now()
                  ORDER BY received_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING id, encode(data, 'base64') AS data`,
    [limit],
  );
  return r.rows.map((row) => ({ id: row.id, event: queuedEventCodec.decode(Buffer.from(row.data, 'base64')) }));
}
