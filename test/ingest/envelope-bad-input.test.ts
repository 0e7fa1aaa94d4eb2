/**
 * Bad input through HTTP: each answers a 4xx with the error object and stores nothing; one bad item among good
 * ones stores the good ones and counts the bad one.
 */
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { countEvents, createProject, envelope, eventEnvelope, outcomes, post, randomEventId, sentryAuth, waitFor, waitForEvents, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;
let other: TestProject;
beforeAll(async () => {
  s = await startTestServer();
  p = await createProject(s);
  other = await createProject(s);
});
afterAll(async () => s?.close());

function expectError(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json() as { error: { code: string; message: string; details: unknown } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(/\w/);
  expect(typeof body.error.details).toBe('object');
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(res.headers['x-sentry-error']).toBe(body.error.message.replace(/[^\x20-\x7e]/g, '?').slice(0, 200));
}

const ok = { message: 'fine' };
const url = () => `/api/${p.id}/envelope/`;
const auth = () => sentryAuth(p.publicKey);

describe('bad envelopes', () => {
  const cases: Array<[string, () => Promise<LightMyRequestResponse>, number, string]> = [
    ['header line not JSON', () => post(s, url(), '{"event_id":\n{"type":"event"}\n{}', auth()), 400, 'invalid_envelope'],
    ['header line not an object', () => post(s, url(), '[1]\n{"type":"event"}\n{}', auth()), 400, 'invalid_envelope'],
    ['item without type', () => post(s, url(), '{}\n{"length":2}\n{}', auth()), 400, 'invalid_envelope'],
    ['length past the end', () => post(s, url(), '{}\n{"type":"event","length":500}\n{}', auth()), 400, 'invalid_envelope'],
    ['length not followed by a newline', () => post(s, url(), '{}\n{"type":"event","length":2}\n{}x\n', auth()), 400, 'invalid_envelope'],
    ['two events', () => post(s, url(), envelope({}, [[{ type: 'event' }, ok], [{ type: 'event' }, ok]]), auth()), 400, 'invalid_envelope'],
    ['event not JSON', () => post(s, url(), envelope({}, [[{ type: 'event' }, '{"message":']]), auth()), 400, 'invalid_event'],
    ['event not an object', () => post(s, url(), envelope({}, [[{ type: 'event' }, '[1,2]']]), auth()), 400, 'invalid_event'],
    ['empty event item', () => post(s, url(), '{}\n{"type":"event","length":0}\n', auth()), 400, 'invalid_event'],
    ['bad event_id in the header', () => post(s, url(), eventEnvelope(ok, { event_id: 'xyz' }), auth()), 400, 'invalid_event_id'],
    ['bad event_id in the payload', () => post(s, url(), eventEnvelope({ ...ok, event_id: '123' }), auth()), 400, 'invalid_event_id'],
    ['gzip claimed, plain sent', () => post(s, url(), eventEnvelope(ok), { ...auth(), 'content-encoding': 'gzip' }), 400, 'invalid_compression'],
    ['truncated gzip', () => post(s, url(), zlib.gzipSync(eventEnvelope(ok)).subarray(0, 20), { ...auth(), 'content-encoding': 'gzip' }), 400, 'invalid_compression'],
    ['unknown encoding', () => post(s, url(), eventEnvelope(ok), { ...auth(), 'content-encoding': 'lzma' }), 415, 'unsupported_content_encoding'],
    ['no key', () => post(s, url(), eventEnvelope(ok)), 401, 'missing_client_key'],
    ['unknown key', () => post(s, url(), eventEnvelope(ok), sentryAuth('0'.repeat(32))), 403, 'unknown_client_key'],
    ['key of another project', () => post(s, url(), eventEnvelope(ok), sentryAuth(other.publicKey)), 403, 'unknown_client_key'],
    ['keys that disagree', () => post(s, `${url()}?sentry_key=${other.publicKey}`, eventEnvelope(ok), auth()), 400, 'conflicting_client_keys'],
    ['dsn of another project', () => post(s, url(), eventEnvelope(ok, { dsn: `http://${p.publicKey}@x.test/999` }), auth()), 403, 'unknown_client_key'],
    ['unknown project', () => post(s, '/api/987654/envelope/', eventEnvelope(ok), auth()), 404, 'not_found'],
    ['project id not numeric', () => post(s, '/api/abc/envelope/', eventEnvelope(ok), auth()), 400, 'invalid_project_id'],
    ['event item over 1 MB', () => post(s, url(), eventEnvelope({ message: 'x'.repeat(1024 * 1024 + 10) }), auth()), 413, 'event_too_large'],
    ['decompression bomb over 20 MB', () => post(s, url(), zlib.gzipSync(Buffer.alloc(21 * 1024 * 1024, 0x20)), { ...auth(), 'content-encoding': 'gzip' }), 413, 'envelope_too_large'],
    ['body over 20 MB as sent', () => post(s, url(), Buffer.alloc(20 * 1024 * 1024 + 100, 0x20), auth()), 413, 'envelope_too_large'],
    // The key is checked before the body is inflated: a bomb with a wrong key is a 403, not a 413.
    ['bomb with an unknown key', () => post(s, url(), zlib.gzipSync(Buffer.alloc(21 * 1024 * 1024, 0x20)), { ...sentryAuth('0'.repeat(32)), 'content-encoding': 'gzip' }), 403, 'unknown_client_key'],
    ['bomb with an unknown key in its dsn only', () => post(s, url(), zlib.gzipSync(Buffer.concat([Buffer.from(`{"dsn":"http://${'0'.repeat(32)}@x.test/${p.id}"}\n`), Buffer.alloc(21 * 1024 * 1024, 0x20)])), { 'content-encoding': 'gzip' }), 403, 'unknown_client_key'],
    ['dsn only, past the first 64 KB', () => post(s, url(), zlib.gzipSync(eventEnvelope(ok, { pad: 'x'.repeat(70 * 1024), dsn: p.dsn })), { 'content-encoding': 'gzip' }), 401, 'missing_client_key'],
    ['store body not JSON', () => post(s, `/api/${p.id}/store/`, '{"message"', auth()), 400, 'invalid_event'],
    ['store body base64 of garbage', () => post(s, `/api/${p.id}/store/`, Buffer.from('not zlib at all').toString('base64'), auth()), 400, 'invalid_compression'],
  ];

  for (const [name, send, status, code] of cases) {
    it(`${name} → ${status} ${code}`, async () => expectError(await send(), status, code));
  }

  it('stored nothing and counted the refusals of the known project as invalid', async () => {
    const o = await waitFor(async () => {
      const r = await outcomes(s.db, p.id);
      return Object.values(r).reduce((a, b) => a + b, 0) >= 18 ? r : undefined;
    });
    // Refusals before the project is known (keys, project) are not counted per project; the key is checked before
    // the body is read, so a body refused after it counts.
    expect(o).toEqual({
      'invalid:invalid_envelope': 6,
      'invalid:invalid_event': 3,
      'invalid:empty_payload': 1,
      'invalid:invalid_event_id': 2,
      'invalid:invalid_compression': 3,
      'invalid:event_too_large': 1,
      'invalid:envelope_too_large': 2,
    });
    expect(await countEvents(s.db, p.id)).toBe(0);
    expect(await countEvents(s.db, other.id)).toBe(0);
    expect((await s.db.query('SELECT 1 FROM issues')).rows).toHaveLength(0);
  });
});

describe('one bad item among good ones', () => {
  it('stores the event and counts the unreadable client report', async () => {
    const q = await createProject(s);
    const id = randomEventId();
    const body = envelope({ event_id: id }, [
      [{ type: 'event' }, { message: 'kept' }],
      [{ type: 'client_report' }, 'not json'],
      [{ type: 'attachment', length: 5 }, 'hello'],
      [{ type: 'something_new' }, { a: 1 }],
    ]);
    const res = await post(s, `/api/${q.id}/envelope/`, body, sentryAuth(q.publicKey));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id });
    await waitForEvents(s.db, q.id, 1);
    const o = await waitFor(async () => {
      const r = await outcomes(s.db, q.id);
      return r.accepted ? r : undefined;
    });
    expect(o).toEqual({
      accepted: 1,
      'invalid:invalid_client_report': 1,
      // Attachments count in bytes.
      'filtered:unsupported_item_type:attachment': 5,
      'filtered:unknown_item_type': 1,
    });
  });
});
