/**
 * Issue state on ingest: new issues, regressions, resolved in the next release, ignored until N more, spikes once
 * per hour (with a manual clock), and the outbox rows written in the transaction that stores the event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, eventEnvelope, post, randomEventId, sentryAuth, waitFor, type TestProject } from './support/ingest-helpers.ts';

const HOUR = 3_600_000;
const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR + 5 * 60_000);
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ clock });
});
afterAll(async () => s?.close());

interface Issue {
  id: string;
  state: string;
  regressed: boolean;
  count: number;
  last_release: string | null;
  resolved_in_release: string | null;
}

/** Sends one event and waits until the writer stored it; returns its issue. */
async function send(p: TestProject, event: Record<string, unknown>): Promise<Issue> {
  const id = randomEventId();
  const res = await post(s, `/api/${p.id}/envelope/`, eventEnvelope(event, { event_id: id }), sentryAuth(p.publicKey));
  expect(res.statusCode, res.body).toBe(200);
  const row = await waitFor(async () => (await s.db.query<{ issue_id: string }>('SELECT issue_id FROM events WHERE project_id = $1 AND event_id = $2', [p.id, id])).rows[0]);
  return (await s.api('GET', `/api/v1/issues/${row.issue_id}`)).json();
}

async function patch(issueId: string, body: Record<string, unknown>): Promise<Issue> {
  const res = await s.api('PATCH', `/api/v1/issues/${issueId}`, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function outbox(p: TestProject): Promise<Array<{ kind: string; payload: Record<string, unknown> }>> {
  return (await s.db.query<{ kind: string; payload: Record<string, unknown> }>('SELECT kind, payload FROM outbox WHERE team_id = $1 ORDER BY id', [p.team])).rows;
}

describe('issue states', () => {
  it('emits issue.new once, with the issue, project, counts, link and triggering event', async () => {
    const p = await createProject(s);
    const a = await send(p, { message: 'boom', user: { email: 'a@example.com' } });
    await send(p, { message: 'boom', user: { email: 'b@example.com' } });
    const rows = await outbox(p);
    expect(rows.map((r) => r.kind)).toEqual(['issue.new']);
    expect(rows[0].payload).toMatchObject({
      issue_id: a.id, title: 'boom', level: 'error', state: 'unresolved', count: 1, people: 1,
      project: { id: p.id }, url: expect.stringContaining(`/api/v1/issues/${a.id}`), event_id: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const issue = (await s.api('GET', `/api/v1/issues/${a.id}`)).json();
    expect(issue).toMatchObject({ count: 2, people: 2 });
  });

  it('regresses a resolved issue on its next event', async () => {
    const p = await createProject(s);
    const a = await send(p, { message: 'flaky' });
    expect((await patch(a.id, { state: 'resolved' })).state).toBe('resolved');
    const after = await send(p, { message: 'flaky' });
    expect(after).toMatchObject({ state: 'unresolved', regressed: true, count: 2 });
    const rows = await outbox(p);
    expect(rows.map((r) => r.kind)).toEqual(['issue.new', 'issue.regressed']);
    expect(rows[1].payload).toMatchObject({ issue_id: a.id, state: 'unresolved', count: 2 });
    // Further events do not regress it again.
    await send(p, { message: 'flaky' });
    expect((await outbox(p)).length).toBe(2);
  });

  it('keeps an issue resolved in the next release for that release and older ones, regresses on a later one', async () => {
    const p = await createProject(s);
    await send(p, { message: 'old release', release: '0.9' });
    const a = await send(p, { message: 'cart fails', release: '1.0' });
    const resolved = await patch(a.id, { state: 'resolved_in_next_release' });
    expect(resolved).toMatchObject({ state: 'resolved_in_next_release', resolved_in_release: '1.0' });
    expect((await send(p, { message: 'cart fails', release: '1.0' })).state).toBe('resolved_in_next_release');
    expect((await send(p, { message: 'cart fails', release: '0.9' })).state).toBe('resolved_in_next_release');
    const quiet = await send(p, { message: 'cart fails' });
    expect(quiet).toMatchObject({ state: 'resolved_in_next_release', count: 4 });
    const later = await send(p, { message: 'cart fails', release: '1.1' });
    expect(later).toMatchObject({ state: 'unresolved', regressed: true, count: 5, last_release: '1.1' });
    expect((await outbox(p)).filter((r) => r.kind === 'issue.regressed')).toHaveLength(1);
  });

  it('brings an issue ignored until 3 more events back to unresolved on the third, silently', async () => {
    const p = await createProject(s);
    const a = await send(p, { message: 'noisy' });
    expect((await patch(a.id, { state: 'ignored', ignore_until_count: 3 })).state).toBe('ignored');
    expect((await send(p, { message: 'noisy' })).state).toBe('ignored');
    expect((await send(p, { message: 'noisy' })).state).toBe('ignored');
    expect(await send(p, { message: 'noisy' })).toMatchObject({ state: 'unresolved', regressed: false, count: 4 });
    expect((await outbox(p)).map((r) => r.kind)).toEqual(['issue.new']);
  });

  it('keeps an issue ignored without a count ignored', async () => {
    const p = await createProject(s);
    const a = await send(p, { message: 'muted' });
    await patch(a.id, { state: 'ignored' });
    for (let i = 0; i < 3; i++) expect((await send(p, { message: 'muted' })).state).toBe('ignored');
  });

  it('refuses ignore_until_count without the ignored state', async () => {
    const p = await createProject(s);
    const a = await send(p, { message: 'x' });
    const res = await s.api('PATCH', `/api/v1/issues/${a.id}`, { state: 'resolved', ignore_until_count: 2 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_ignore_count');
  });

  it('emits issue.spike once per hour past the threshold', async () => {
    const p = await createProject(s, { spike_threshold: 5 });
    for (let i = 0; i < 9; i++) await send(p, { message: 'spiky' });
    let spikes = (await outbox(p)).filter((r) => r.kind === 'issue.spike');
    expect(spikes).toHaveLength(1);
    expect(spikes[0].payload).toMatchObject({ hour_count: 6, threshold: 5, count: 6 });
    clock.advance(HOUR);
    for (let i = 0; i < 5; i++) await send(p, { message: 'spiky' });
    expect((await outbox(p)).filter((r) => r.kind === 'issue.spike')).toHaveLength(1);
    await send(p, { message: 'spiky' });
    spikes = (await outbox(p)).filter((r) => r.kind === 'issue.spike');
    expect(spikes).toHaveLength(2);
    expect(spikes[1].payload).toMatchObject({ hour_count: 6, count: 15, hour: new Date(Math.floor(clock.now() / HOUR) * HOUR).toISOString() });
    const hourly = await s.db.query<{ count: number }>('SELECT h.count FROM issue_hourly h JOIN issues i ON i.id = h.issue_id WHERE i.project_id = $1 ORDER BY h.hour', [p.id]);
    expect(hourly.rows.map((r) => r.count)).toEqual([9, 6]);
  });
});

describe('the outbox row and its cause commit together', () => {
  it('rolls the outbox row back with a batch that fails after writing it, and writes it once on the retry', async () => {
    await s.db.exec(`
      CREATE SEQUENCE test_fail_once;
      CREATE FUNCTION test_fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('test_fail_once') = 1 THEN RAISE EXCEPTION 'injected failure' USING ERRCODE = '40001'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_fail_once BEFORE INSERT ON ingest_outcomes FOR EACH ROW EXECUTE FUNCTION test_fail_once();`);
    try {
      const p = await createProject(s);
      const issue = await send(p, { message: 'atomic' });
      const rows = await outbox(p);
      expect(rows.map((r) => r.kind)).toEqual(['issue.new']);
      expect(rows[0].payload.issue_id).toBe(issue.id);
      expect(issue.count).toBe(1);
      const seq = await s.db.query<{ last_value: number }>('SELECT last_value FROM test_fail_once');
      expect(seq.rows[0].last_value).toBeGreaterThanOrEqual(2);
    } finally {
      await s.db.exec('DROP TRIGGER test_fail_once ON ingest_outcomes; DROP FUNCTION test_fail_once(); DROP SEQUENCE test_fail_once;');
    }
  });
});
