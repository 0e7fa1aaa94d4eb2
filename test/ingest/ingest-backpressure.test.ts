/**
 * Backpressure and shutdown: while the database is held up, the queue fills and further events get 503
 * ingest_queue_full with Retry-After (nothing grows without bound); the queued events are not acknowledged until
 * they are durable; closing the node drains the queue so that every acknowledged event is in the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ADMIN_TOKEN } from '../support/test-server.ts';
import { countEvents, eventEnvelope, outcomes, randomEventId, sentryAuth } from './support/ingest-helpers.ts';
import { startOwnedDbServer, type OwnedDbServer } from './support/owned-db-server.ts';

let node: OwnedDbServer;
let app: FastifyInstance;
let project: { id: number; public_key: string };

beforeAll(async () => {
  node = await startOwnedDbServer({ SVC_INGEST_QUEUE_EVENTS: '20', SVC_INGEST_BATCH_SIZE: '5' });
  app = node.server.app;
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  await app.inject({ method: 'POST', url: '/api/v1/teams', payload: { name: 'bp' }, headers: admin });
  project = (await app.inject({ method: 'POST', url: '/api/v1/projects', payload: { name: 'bp', events_per_minute: 10_000 }, headers: { ...admin, 'x-svc-team': 'bp' } })).json();
});
afterAll(async () => node?.dispose());

function send(i: number) {
  return app.inject({
    method: 'POST', url: `/api/${project.id}/envelope/`,
    payload: eventEnvelope({ message: `held ${i % 3}` }, { event_id: randomEventId() }), headers: sentryAuth(project.public_key),
  });
}

describe('a held-up database', () => {
  it('answers 503 ingest_queue_full past the queue size, then drains everything acknowledged on close', async () => {
    await send(-1); // warm the project and key caches
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // Hold the events table: every writer transaction waits behind this one.
    const holder = node.db.tx(async (q) => {
      await q.query('LOCK TABLE events IN EXCLUSIVE MODE');
      locked();
      await held;
    });
    await isLocked;

    // Sent at once: the queued ones wait for the database (an answer means durable), the others are refused now.
    let refused = 0;
    const sending = Array.from({ length: 40 }, (_, i) => send(i).then((a) => {
      if (a.statusCode === 503) refused += 1;
      return a;
    }));
    const deadline = Date.now() + 20_000;
    while (refused < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    // Close while the database is still held; release it shortly after: close() must wait and write them all.
    const closing = node.server.close();
    setTimeout(release, 300);
    const answers = await Promise.all(sending);
    await closing;
    await holder;
    const ok = answers.filter((a) => a.statusCode === 200);
    const full = answers.filter((a) => a.statusCode === 503);
    expect(ok.length).toBeGreaterThanOrEqual(15);
    expect(ok.length).toBeLessThanOrEqual(20);
    expect(ok.length + full.length).toBe(40);
    expect(full[0].json().error.code).toBe('ingest_queue_full');
    expect(Number(full[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await countEvents(node.db, project.id)).toBe(ok.length + 1);
    const o = await outcomes(node.db, project.id);
    expect(o.accepted).toBe(ok.length + 1);
    expect(o['rate_limited:ingest_queue_full']).toBe(full.length);
  });
});
