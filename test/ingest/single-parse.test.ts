/**
 * Each event is parsed once (issue 14): the fast path parses the event item to read its id, and the writer stores
 * what that parse gave (ingest/writer/prepare-queued.ts) instead of parsing the bytes again in its worker. With no
 * worker threads (SVC_INGEST_WORKERS=0) every parse of the node runs on this thread, where JSON.parse is watched:
 * the event's text must go through it once between the request and the stored row.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, envelope, post, randomEventId, sentryAuth, waitForEvents, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;

beforeAll(async () => {
  s = await startTestServer({ env: { SVC_INGEST_WORKERS: '0' } });
  p = await createProject(s, { events_per_minute: 10_000 });
});
afterAll(async () => s?.close());

/** Sends the request, waits until its event is stored, and returns how often JSON.parse was given `text`. */
async function parsesOf(text: string, send: () => Promise<{ statusCode: number }>, stored: number): Promise<number> {
  const parse = vi.spyOn(JSON, 'parse');
  try {
    const res = await send();
    expect(res.statusCode).toBe(200);
    await waitForEvents(s.db, p.id, stored);
    return parse.mock.calls.filter(([arg]) => arg === text).length;
  } finally {
    parse.mockRestore();
  }
}

async function storedTitle(eventId: string): Promise<string | undefined> {
  const r = await s.db.query<{ title: string }>('SELECT title FROM events WHERE project_id = $1 AND event_id = $2', [p.id, eventId]);
  return r.rows[0]?.title;
}

describe('each event is parsed once', () => {
  it('an envelope event: parsed at the fast path, stored from that parse', async () => {
    const id = randomEventId();
    const text = JSON.stringify({ event_id: id, message: `parsed once ${id}`, level: 'error', platform: 'javascript' });
    const body = envelope({ event_id: id }, [[{ type: 'event' }, text]]);
    expect(await parsesOf(text, () => post(s, `/api/${p.id}/envelope/`, body, sentryAuth(p.publicKey)), 1)).toBe(1);
    expect(await storedTitle(id)).toBe(`parsed once ${id}`);
  });

  it('a /store/ event: the same', async () => {
    const id = randomEventId();
    const text = JSON.stringify({ event_id: id, message: `stored once ${id}`, level: 'warning' });
    const send = () => s.app.inject({ method: 'POST', url: `/api/${p.id}/store/`, payload: text, headers: { 'content-type': 'application/json', ...sentryAuth(p.publicKey) } });
    expect(await parsesOf(text, send, 2)).toBe(1);
    expect(await storedTitle(id)).toBe(`stored once ${id}`);
  });
});
