/**
 * The SDK corpus (test/fixtures/sdk-events.ts) through HTTP on both ingest endpoints: each event is stored and its
 * issue gets the title and culprit Sentry gives it; the same event sent to either endpoint lands in one issue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK_CORPUS } from '../fixtures/sdk-events.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, eventEnvelope, post, randomEventId, sentryAuth, waitFor, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;
beforeAll(async () => {
  s = await startTestServer();
  p = await createProject(s);
}, 60_000);
afterAll(async () => s?.close());

interface IssueRow { id: string; title: string; culprit: string }

async function issueOf(eventId: string): Promise<IssueRow> {
  return waitFor(async () => (await s.db.query<IssueRow>(
    'SELECT i.id, i.title, i.culprit FROM events e JOIN issues i ON i.id = e.issue_id WHERE e.project_id = $1 AND e.event_id = $2',
    [p.id, eventId],
  )).rows[0], 20_000);
}

describe('SDK corpus on both ingest endpoints', () => {
  for (const c of SDK_CORPUS) {
    it(`${c.name}: stored with Sentry's title and culprit, one issue for both endpoints`, async () => {
      const viaEnvelope = randomEventId();
      const viaStore = randomEventId();
      const a = await post(s, `/api/${p.id}/envelope/`, eventEnvelope({ ...c.event, event_id: viaEnvelope }), sentryAuth(p.publicKey));
      expect(a.statusCode, a.body).toBe(200);
      const b = await post(s, `/api/${p.id}/store/`, JSON.stringify({ ...c.event, event_id: viaStore }), { ...sentryAuth(p.publicKey), 'content-type': 'application/json' });
      expect(b.statusCode, b.body).toBe(200);
      const first = await issueOf(viaEnvelope);
      expect(first).toMatchObject({ title: c.title, culprit: c.culprit });
      expect((await issueOf(viaStore)).id).toBe(first.id);
    }, 60_000);
  }
});
