/**
 * Stored event documents in either column (SVC_EVENT_DOCUMENTS, docs/errors.md#event-documents): a node storing
 * `json` and one storing `jsonb` share a database during the switch, so events of both kinds sit side by side in one
 * issue and the API answers each with the same document.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as Sentry from '@sentry/node';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, waitFor, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  p = await createProject(s);
  Sentry.init({ dsn: p.dsn, release: 'shop@3.0.0', environment: 'test', defaultIntegrations: false, attachStacktrace: true });
});
afterAll(async () => {
  await Sentry.close(2000);
  await s?.close();
});

function failCheckout(order: string): string {
  try {
    throw new TypeError(`Order ${order} has no lines`);
  } catch (e) {
    Sentry.setUser({ id: 'u-42', email: 'ada@example.com' });
    Sentry.setTag('shop', 'zürich ✓');
    return Sentry.captureException(e, { extra: { cart: { lines: [], total: 0.5, note: 'emoji 🧾, quote " and \\ backslash' } } });
  }
}

interface StoredColumns {
  event_id: string;
  in_data: boolean;
  in_doc: boolean;
}

async function stored(eventId: string): Promise<StoredColumns> {
  return waitFor(async () => {
    const r = await s.db.query<StoredColumns>('SELECT event_id, data IS NOT NULL AS in_data, doc IS NOT NULL AS in_doc FROM events WHERE project_id = $1 AND event_id = $2', [p.id, eventId]);
    return r.rows[0];
  }, 20_000);
}

type Frame = { function?: string; lineno?: number; in_app?: boolean };
type Doc = Record<string, unknown> & { contexts: Record<string, unknown>; exception: { values: Array<{ stacktrace: { frames: Frame[] } }> } };

/**
 * The document as the API answers it, without what differs between two sends of the same error: ids, times, the
 * span, and the frames below the test's own (the test runner's, deeper on the first send).
 */
async function document(eventId: string): Promise<Doc> {
  const res = await s.api('GET', `/api/v1/events/${eventId}`);
  expect(res.statusCode, res.body).toBe(200);
  const { event_id: _id, timestamp: _t, received: _r, ...rest } = res.json().data as Doc;
  delete rest.contexts.trace;
  for (const v of rest.exception.values) v.stacktrace.frames = v.stacktrace.frames.filter((f) => f.in_app && f.lineno !== undefined).slice(-1);
  return rest;
}

it('keeps jsonb events readable after the switch to json, in one issue, with the same document', async () => {
  expect(s.ctx.config.eventDocuments).toBe('jsonb');
  const ids: string[] = [];
  for (const documents of ['jsonb', 'json'] as const) {
    // As a node restarted with SVC_EVENT_DOCUMENTS=json: the writer reads the setting for each batch. The same line
    // captures both, so their stack traces are equal too.
    s.ctx.config.eventDocuments = documents;
    const id = failCheckout('A-1');
    expect(await stored(id)).toMatchObject({ in_data: documents === 'jsonb', in_doc: documents === 'json' });
    ids.push(id);
  }
  const [before, after] = ids;

  const [a, b] = [await document(before), await document(after)];
  expect(b).toEqual(a);
  expect(b).toMatchObject({ tags: expect.objectContaining({ shop: 'zürich ✓' }), extra: { cart: { lines: [], total: 0.5, note: 'emoji 🧾, quote " and \\ backslash' } } });
  expect(b.exception.values[0]).toMatchObject({ type: 'TypeError', value: 'Order A-1 has no lines', stacktrace: { frames: [{ function: 'failCheckout' }] } });

  const issues = (await s.api('GET', `/api/v1/projects/${p.id}/issues`)).json().items as Array<{ id: string; count: number }>;
  expect(issues).toHaveLength(1);
  expect(issues[0].count).toBe(2);
  const events = (await s.api('GET', `/api/v1/issues/${issues[0].id}/events`)).json().items as Array<{ event_id: string }>;
  expect(events.map((e) => e.event_id).sort()).toEqual([before, after].sort());
});

it('refuses a row holding its document in neither column, or in both', async () => {
  const issue = (await s.db.query<{ id: string }>('SELECT id FROM issues WHERE project_id = $1 LIMIT 1', [p.id])).rows[0].id;
  const insert = (data: string | null, doc: string | null) => s.db.query(
    `INSERT INTO events (project_id, event_id, issue_id, timestamp, received_at, level, title, data, doc)
     VALUES ($1, md5(random()::text), $2, now(), now(), 'error', 't', $3::jsonb, $4::json)`, [p.id, issue, data, doc]);
  await expect(insert(null, null)).rejects.toThrow(/events_one_document/);
  await expect(insert('{}', '{}')).rejects.toThrow(/events_one_document/);
});
