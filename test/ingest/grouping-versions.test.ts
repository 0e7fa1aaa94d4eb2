/**
 * A change of the grouping rule keeps stored issues in their groups (ingest/writer/adopt-legacy-issues.ts): message
 * issues stored under the previous rule (level and message) receive the new events of their message, and the same
 * message at another level joins the same issue from then on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintEvent } from '../../ingest/lib/fingerprint-event.ts';
import { normalizeEvent } from '../../ingest/lib/normalize-event.ts';
import { newId } from '../../core/ids.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, eventEnvelope, post, randomEventId, sentryAuth, waitFor, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;

beforeAll(async () => {
  s = await startTestServer();
  p = await createProject(s, { events_per_minute: 10_000 });
});
afterAll(async () => s?.close());

function fingerprintsOf(raw: Record<string, unknown>) {
  return fingerprintEvent(normalizeEvent(raw, { receivedAt: new Date(), retentionDays: 90 }));
}

/** An issue as the previous rule stored it: keyed by the level-and-message hash. */
async function storedUnderPreviousRule(raw: Record<string, unknown>, level: string): Promise<string> {
  const { legacyHash } = fingerprintsOf(raw);
  expect(legacyHash).toBeDefined();
  const id = newId();
  await s.db.query(
    `INSERT INTO issues (id, project_id, fingerprint, title, level, type, first_seen, last_seen, created_at, updated_at, count)
     VALUES ($1, $2, $3, $4, $5, 'default', now() - interval '1 day', now() - interval '1 day', now(), now(), 5)`,
    [id, p.id, legacyHash, String(raw.message), level],
  );
  return id;
}

async function send(raw: Record<string, unknown>): Promise<string> {
  const eventId = randomEventId();
  const res = await post(s, `/api/${p.id}/envelope/`, eventEnvelope(raw, { event_id: eventId }), sentryAuth(p.publicKey));
  expect(res.statusCode).toBe(200);
  return eventId;
}

async function issueOfEvent(eventId: string): Promise<string> {
  return waitFor(async () => (await s.db.query<{ issue_id: string }>(
    'SELECT issue_id FROM events WHERE project_id = $1 AND event_id = $2', [p.id, eventId])).rows[0]?.issue_id);
}

describe('grouping versions', () => {
  it('a message issue stored under the previous rule keeps receiving its events, re-keyed once', async () => {
    const warning = { message: 'Disk 91 percent full', level: 'warning' };
    const oldIssue = await storedUnderPreviousRule(warning, 'warning');
    expect(await issueOfEvent(await send(warning))).toBe(oldIssue);

    const issue = (await s.db.query<{ fingerprint: string; count: string }>('SELECT fingerprint, count FROM issues WHERE id = $1', [oldIssue])).rows[0];
    expect(issue.fingerprint).toBe(fingerprintsOf(warning).hash);
    expect(Number(issue.count)).toBe(6);
    // The same message at another level now joins it too (the level no longer splits a message's issue).
    expect(await issueOfEvent(await send({ message: 'Disk 17 percent full', level: 'error' }))).toBe(oldIssue);
  });

  it('of two issues the previous rule split by level, the first seen takes the new events; the other keeps its own', async () => {
    const info = { message: 'Queue 7 drained', level: 'info' };
    const fatal = { message: 'Queue 7 drained', level: 'fatal' };
    const infoIssue = await storedUnderPreviousRule(info, 'info');
    const fatalIssue = await storedUnderPreviousRule(fatal, 'fatal');
    const first = await issueOfEvent(await send(fatal));
    expect(first).toBe(fatalIssue);
    expect(await issueOfEvent(await send(info))).toBe(fatalIssue);
    const rows = (await s.db.query<{ id: string; count: string }>('SELECT id, count FROM issues WHERE id IN ($1, $2)', [infoIssue, fatalIssue])).rows;
    expect(Object.fromEntries(rows.map((r) => [r.id, Number(r.count)]))).toEqual({ [infoIssue]: 5, [fatalIssue]: 7 });
  });

  it('a new message with no stored issue opens one under the current rule', async () => {
    const raw = { message: 'Brand new message 3', level: 'warning' };
    const issueId = await issueOfEvent(await send(raw));
    const row = (await s.db.query<{ fingerprint: string }>('SELECT fingerprint FROM issues WHERE id = $1', [issueId])).rows[0];
    expect(row.fingerprint).toBe(fingerprintsOf(raw).hash);
  });
});
