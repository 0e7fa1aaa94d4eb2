import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, envelope, eventEnvelope, outcomes, post, randomEventId, sentryAuth, STORED_DOCUMENT, waitFor, waitForEvents, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;
beforeAll(async () => {
  s = await startTestServer();
  p = await createProject(s);
});
afterAll(async () => s?.close());

describe('POST /api/{project}/envelope/', () => {
  it('stores an event and answers its id', async () => {
    const id = randomEventId();
    const res = await post(s, `/api/${p.id}/envelope/`, eventEnvelope({ message: 'hello 42', level: 'warning' }, { event_id: id }), sentryAuth(p.publicKey));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    await waitForEvents(s.db, p.id, 1);
    const ev = await s.db.query<{ title: string; level: string; data: Record<string, unknown> }>(`SELECT title, level, ${STORED_DOCUMENT} FROM events WHERE project_id = $1`, [p.id]);
    expect(ev.rows[0]).toMatchObject({ title: 'hello 42', level: 'warning' });
    const issues = await s.api('GET', `/api/v1/projects/${p.id}/issues`);
    expect(issues.json().items).toHaveLength(1);
    expect(issues.json().items[0]).toMatchObject({ title: 'hello 42', count: 1, state: 'unresolved', level: 'warning' });
    await waitFor(async () => (await outcomes(s.db, p.id)).accepted === 1);
  });

  it('keeps non-ASCII text intact, and repairs what jsonb cannot hold', async () => {
    const id = randomEventId();
    const res = await post(s, `/api/${p.id}/envelope/`, eventEnvelope({ message: 'Größe ungültig 😀 \u0000 é' }, { event_id: id }), sentryAuth(p.publicKey));
    expect(res.statusCode).toBe(200);
    const row = await waitFor(async () => (await s.db.query<{ title: string }>('SELECT title FROM events WHERE project_id = $1 AND event_id = $2', [p.id, id])).rows[0]);
    expect(row.title).toBe('Größe ungültig 😀 \ufffd é');
  });

  it('stores control characters inside strings as they came (the writer separates documents with RS)', async () => {
    const id = randomEventId();
    const extra = { note: 'a\u001eb\u001fc\u0001', ['key\u001e']: ['\u001e'] };
    const res = await post(s, `/api/${p.id}/envelope/`, eventEnvelope({ message: 'rs \u001e inside', extra }, { event_id: id }), sentryAuth(p.publicKey));
    expect(res.statusCode).toBe(200);
    const row = await waitFor(async () => (await s.db.query<{ title: string; data: { extra: unknown } }>(`SELECT title, ${STORED_DOCUMENT} FROM events WHERE project_id = $1 AND event_id = $2`, [p.id, id])).rows[0]);
    expect(row.title).toBe('rs \u001e inside');
    expect(row.data.extra).toEqual(extra);
  });

  it('accepts and drops sessions, counting them', async () => {
    const body = envelope({}, [[{ type: 'session' }, { sid: 'x' }], [{ type: 'transaction' }, { type: 'transaction' }]]);
    const res = await post(s, `/api/${p.id}/envelope/`, body, sentryAuth(p.publicKey));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    await waitFor(async () => (await outcomes(s.db, p.id))['filtered:unsupported_item_type:session'] === 1);
  });
});
