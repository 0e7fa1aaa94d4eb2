/**
 * The inflate budget over HTTP: with a budget smaller than an envelope's 20 MB limit, a body that must be decoded as
 * a stream is refused with 503 ingest_overloaded, Retry-After and the SDK's error header, and counted as the event's
 * rate_limited outcome; a usual small event, decoded at once, is still accepted and stored.
 */
import zlib from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, envelope, eventEnvelope, outcomes, post, randomEventId, sentryAuth, waitFor, waitForEvents } from './support/ingest-helpers.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ env: { SVC_INGEST_INFLATE_BUDGET_BYTES: String(2 * 1024 * 1024) } });
});
afterAll(async () => s?.close());

it('refuses a body past the budget with 503 ingest_overloaded and keeps taking small events', async () => {
  const p = await createProject(s);
  const large = zlib.gzipSync(envelope({}, [[{ type: 'event' }, { message: 'large' }], [{ type: 'attachment', length: 3 * 1024 * 1024 }, Buffer.alloc(3 * 1024 * 1024, 0x41)]]));
  const refused = await post(s, `/api/${p.id}/envelope/`, large, { ...sentryAuth(p.publicKey), 'content-encoding': 'gzip' });
  expect(refused.statusCode, refused.body).toBe(503);
  expect(refused.json().error.code).toBe('ingest_overloaded');
  expect(refused.headers['retry-after']).toBe('1');
  expect(refused.headers['x-sentry-error']).toMatch(/memory budget/);

  const id = randomEventId();
  const small = await post(s, `/api/${p.id}/envelope/`, zlib.gzipSync(eventEnvelope({ message: 'small' }, { event_id: id })), { ...sentryAuth(p.publicKey), 'content-encoding': 'gzip' });
  expect(small.statusCode, small.body).toBe(200);
  expect(small.json()).toEqual({ id });
  await waitForEvents(s.db, p.id, 1);

  const o = await waitFor(async () => {
    const r = await outcomes(s.db, p.id);
    return r['rate_limited:ingest_overloaded'] && r.accepted ? r : undefined;
  });
  expect(o).toEqual({ 'rate_limited:ingest_overloaded': 1, accepted: 1 });
});
