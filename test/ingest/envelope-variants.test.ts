/** What real clients send, through HTTP: compressions, the key in every place, CORS, framing variants, /store/. */
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { countEvents, createProject, envelope, eventEnvelope, post, randomEventId, sentryAuth, waitFor, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;
beforeAll(async () => {
  s = await startTestServer();
  p = await createProject(s);
});
afterAll(async () => s?.close());

async function expectStored(eventId: string) {
  await waitFor(async () => (await s.db.query('SELECT 1 FROM events WHERE project_id = $1 AND event_id = $2', [p.id, eventId])).rows.length === 1);
}

describe('content encodings', () => {
  const encodings: Array<[string, string, (b: Buffer) => Buffer]> = [
    ['gzip', 'gzip', (b) => zlib.gzipSync(b)],
    ['deflate (zlib)', 'deflate', (b) => zlib.deflateSync(b)],
    ['deflate (raw)', 'deflate', (b) => zlib.deflateRawSync(b)],
    ['br', 'br', (b) => zlib.brotliCompressSync(b)],
    ['identity', 'identity', (b) => b],
  ];
  if (typeof zlib.zstdCompressSync === 'function') encodings.push(['zstd', 'zstd', (b) => zlib.zstdCompressSync(b)]);
  for (const [name, header, compress] of encodings) {
    it(`accepts ${name}`, async () => {
      const id = randomEventId();
      const res = await post(s, `/api/${p.id}/envelope/`, compress(eventEnvelope({ message: `compressed ${name}` }, { event_id: id })), { ...sentryAuth(p.publicKey), 'content-encoding': header });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ id });
      await expectStored(id);
    });
  }
});

describe('the client key in every place', () => {
  const k = () => p.publicKey;
  const places: Array<[string, () => { path?: string; headers?: Record<string, string>; dsn?: boolean }]> = [
    ['X-Sentry-Auth', () => ({ headers: sentryAuth(k()) })],
    ['X-Client-Auth', () => ({ headers: { 'x-client-auth': `client_key=${k()}, client_version=7` } })],
    ['Authorization: Sentry', () => ({ headers: { authorization: `Sentry sentry_key=${k()}, sentry_version=7` } })],
    ['Authorization: Bearer', () => ({ headers: { authorization: `Bearer ${k()}` } })],
    ['Authorization: Basic', () => ({ headers: { authorization: `Basic ${Buffer.from(`${k()}:`).toString('base64')}` } })],
    ['?sentry_key=', () => ({ path: `?sentry_key=${k()}&sentry_version=7&sentry_client=x/1` })],
    ['?client_key=', () => ({ path: `?client_key=${k()}` })],
    ['the envelope dsn', () => ({ dsn: true })],
  ];
  for (const [name, place] of places) {
    it(`reads it from ${name}`, async () => {
      const { path = '', headers = {}, dsn } = place();
      const id = randomEventId();
      const header: Record<string, unknown> = { event_id: id };
      if (dsn) header.dsn = p.dsn;
      const res = await post(s, `/api/${p.id}/envelope/${path}`, eventEnvelope({ message: `key from ${name}` }, header), headers);
      expect(res.statusCode, res.body).toBe(200);
      await expectStored(id);
    });
  }
});

describe('CORS', () => {
  it('answers the preflight for both endpoints', async () => {
    for (const path of [`/api/${p.id}/envelope/`, `/api/${p.id}/store/`]) {
      const res = await s.app.inject({
        method: 'OPTIONS', url: path,
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-sentry-auth' },
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toContain('POST');
      for (const h of ['x-sentry-auth', 'x-client-auth', 'content-type', 'content-encoding', 'sentry-trace', 'baggage']) {
        expect(String(res.headers['access-control-allow-headers'])).toContain(h);
      }
    }
  });

  it('exposes the rate-limit headers on answers', async () => {
    const res = await post(s, `/api/${p.id}/envelope/?sentry_key=${p.publicKey}`, eventEnvelope({ message: 'cors' }), { origin: 'https://shop.example', 'content-type': 'text/plain;charset=UTF-8' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    for (const h of ['retry-after', 'x-sentry-rate-limits', 'x-client-rate-limits']) expect(String(res.headers['access-control-expose-headers'])).toContain(h);
  });
});

describe('framing variants that are valid', () => {
  it('accepts CRLF payloads, explicit lengths, empty items, no final newline, unknown headers and item types', async () => {
    const id = randomEventId();
    const event = Buffer.from(JSON.stringify({ message: 'framed', tags: [['a', 'b']] }) + '\r');
    const body = Buffer.concat([
      Buffer.from(`{"event_id":"${id.replace(/(.{8})(.{4})(.{4})(.{4})(.{12})/, '$1-$2-$3-$4-$5')}","future_header":{"x":1},"sent_at":"not a time"}\n`),
      Buffer.from('{"type":"attachment","length":0}\n\n'),
      Buffer.from(`{"type":"event","length":${event.length}}\n`), event, Buffer.from('\n'),
      Buffer.from('{"type":"profile_chunk"}\n{"a":1}'),
    ]);
    const res = await post(s, `/api/${p.id}/envelope/`, body, sentryAuth(p.publicKey));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ id });
    await expectStored(id);
  });

  it('answers {} for an envelope with no items', async () => {
    const res = await post(s, `/api/${p.id}/envelope/`, '{}', sentryAuth(p.publicKey));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
  });
});

describe('POST /api/{project}/store/', () => {
  it('takes plain, gzip and base64(zlib) JSON events', async () => {
    const bodies: Array<[Buffer | string, Record<string, string>]> = [];
    const ids = [randomEventId(), randomEventId(), randomEventId()];
    bodies.push([JSON.stringify({ event_id: ids[0], message: 'store plain' }), { 'content-type': 'application/json' }]);
    bodies.push([zlib.gzipSync(JSON.stringify({ event_id: ids[1], message: 'store gzip' })), { 'content-encoding': 'gzip', 'content-type': 'application/json' }]);
    bodies.push([zlib.deflateSync(JSON.stringify({ event_id: ids[2], message: 'store legacy' })).toString('base64'), { 'content-type': 'application/octet-stream' }]);
    for (const [body, headers] of bodies) {
      const res = await post(s, `/api/${p.id}/store/`, body, { ...sentryAuth(p.publicKey), ...headers });
      expect(res.statusCode, res.body).toBe(200);
    }
    for (const id of ids) await expectStored(id);
  });

  it('accepts a transaction and drops it', async () => {
    const before = await countEvents(s.db, p.id);
    const id = randomEventId();
    const res = await post(s, `/api/${p.id}/store/`, JSON.stringify({ event_id: id, type: 'transaction', spans: [] }), sentryAuth(p.publicKey));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id });
    await new Promise((r) => setTimeout(r, 100));
    expect(await countEvents(s.db, p.id)).toBe(before);
  });
});

it('answers envelope events without a transaction type only, transactions in envelopes are dropped', async () => {
  const body = envelope({}, [[{ type: 'transaction' }, { type: 'transaction', event_id: randomEventId() }]]);
  const res = await post(s, `/api/${p.id}/envelope/`, body, sentryAuth(p.publicKey));
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({});
});
