/**
 * Acknowledge on the inbox commit, process after (ingest/writer/ingest-inbox.ts, event-processor.ts): an event is
 * answered 200 once its ingest_inbox row is committed, even while the events table is held; it is stored and its
 * inbox row deleted once the processing gets through. Rows a crashed node left in the inbox (its lease ran out) are
 * processed by a running node within seconds, and a row repeated there is stored once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestProject } from '../../ingest/project-lookup.ts';
import { queuedEventCodec } from '../../ingest/writer/queued-event-codec.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { countEvents, createProject, eventEnvelope, post, randomEventId, sentryAuth, waitFor, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;

beforeAll(async () => {
  s = await startTestServer();
  p = await createProject(s, { events_per_minute: 10_000 });
});
afterAll(async () => s?.close());

async function inboxRows(): Promise<number> {
  return (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ingest_inbox WHERE project_id = $1', [p.id])).rows[0].n;
}

async function ingestProject(): Promise<IngestProject> {
  const r = await s.db.query<{ team_id: string; name: string; slug: string; events_per_minute: number; spike_threshold: number; scrub_keys: string[]; retention_days: number }>(
    'SELECT team_id, name, slug, events_per_minute, spike_threshold, scrub_keys, retention_days FROM projects WHERE id = $1',
    [p.id],
  );
  const row = r.rows[0];
  return {
    id: p.id, teamId: row.team_id, name: row.name, slug: row.slug, eventsPerMinute: row.events_per_minute,
    spikeThreshold: row.spike_threshold, scrubKeys: row.scrub_keys, retentionDays: row.retention_days,
  };
}

describe('the ingest inbox', () => {
  it('answers once the inbox has the event, then stores it and empties the inbox', async () => {
    const before = await countEvents(s.db, p.id);
    let release: (() => void) | undefined;
    let holder: Promise<void> | undefined;
    if (s.db.kind === 'postgres') {
      // Hold the events table: the processing waits, the inbox commit does not (the embedded database has one
      // connection, so there the lock would hold everything).
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      holder = s.db.tx(async (q) => {
        await q.query('LOCK TABLE events IN EXCLUSIVE MODE');
        locked();
        await held;
      });
      await isLocked;
    }
    const id = randomEventId();
    const res = await post(s, `/api/${p.id}/envelope/`, eventEnvelope({ message: 'inbox first' }, { event_id: id }), sentryAuth(p.publicKey));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id });
    if (release) {
      expect(await inboxRows()).toBe(1);
      release();
      await holder;
    }
    await waitFor(async () => (await countEvents(s.db, p.id)) === before + 1 && (await inboxRows()) === 0, 20_000);
  });

  it('processes rows a crashed node left in the inbox, a repeated one once', async () => {
    const before = await countEvents(s.db, p.id);
    const project = await ingestProject();
    const ids = [randomEventId(), randomEventId()];
    const rows = [ids[0], ids[1], ids[1]].map((eventId) => ({
      id: randomUUID(),
      eventId,
      data: queuedEventCodec.encode({ project, eventId, payload: Buffer.from(JSON.stringify({ message: `left ${eventId}` })), receivedAt: Date.now() - 60_000, bytes: 0 }),
    }));
    for (const r of rows) {
      await s.db.query(
        `INSERT INTO ingest_inbox (id, project_id, event_id, received_at, data, claimed_until)
         VALUES ($1, $2, $3, now() - interval '1 minute', decode($4, 'base64'), now() - interval '1 second')`,
        [r.id, p.id, r.eventId, r.data.toString('base64')],
      );
    }
    // The sweep runs every few seconds.
    await waitFor(async () => (await inboxRows()) === 0, 30_000);
    expect(await countEvents(s.db, p.id)).toBe(before + 2);
    const stored = await s.db.query<{ event_id: string }>('SELECT event_id FROM events WHERE project_id = $1 AND event_id = ANY($2::text[])', [p.id, ids]);
    expect(stored.rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
  });
});
