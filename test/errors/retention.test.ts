/** Retention: events past their project's retention are deleted in batches; issues and counts stay; hourly counts and outcomes 90 days. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { RETENTION_JOB, runRetention } from '../../control-plane/projects/errors-retention.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam } from '../api/access-fixtures.ts';
import { createTeamProject, exceptionEvent, issueOfEvent, storeAll, type Project } from './support/errors-fixtures.ts';

const DAY = 86_400_000;
const clock = new ManualClock(Date.UTC(2026, 2, 1, 9, 0, 0));
let s: TestServer;
let short: Project;
let long: Project;

beforeAll(async () => {
  s = await startTestServer({ clock });
  await makeTeam(s, 'keepers');
  short = await createTeamProject(s, 'keepers', { retention_days: 2 });
  long = await createTeamProject(s, 'keepers');
});
afterAll(async () => s?.close());

const count = async (sql: string, params: unknown[]) => (await s.db.query<{ n: number }>(sql, params)).rows[0].n;
const eventsOf = (p: Project) => count('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [p.id]);
const boom = () => exceptionEvent('Error', 'kept or not', { fn: 'keep' });

describe('error retention', () => {
  it("deletes events older than each project's retention, in batches, and keeps issues and their counts", async () => {
    const old = await storeAll(s, short, [boom(), boom(), boom(), boom(), boom()]);
    await storeAll(s, long, [boom()]);
    const issue = await issueOfEvent(s, short.id, old[0]);

    clock.advance(3 * DAY);
    const [fresh] = await storeAll(s, short, [boom()]);
    // Batches of 2: the five old events go in three statements; nothing else is touched.
    expect(await runRetention(s.ctx, 2)).toEqual({ events: 5, hourly: 0, outcomes: 0 });
    expect(await eventsOf(short)).toBe(1);
    expect(await eventsOf(long)).toBe(1);
    expect((await s.api('GET', `/api/v1/events/${old[0]}`)).statusCode).toBe(404);
    expect((await s.api('GET', `/api/v1/events/${fresh}`)).statusCode).toBe(200);

    const shown = (await s.api('GET', `/api/v1/issues/${issue}?hours=2160`)).json();
    expect(shown).toMatchObject({ id: issue, count: 6, state: 'unresolved' });
    expect(shown.hourly.reduce((n: number, h: { count: number }) => n + h.count, 0)).toBe(6);
    expect((await s.api('GET', `/api/v1/issues/${issue}/events`)).json().items.map((e: { event_id: string }) => e.event_id)).toEqual([fresh]);
  });

  it('runs as a scheduler job; hourly counts and ingest outcomes go after 90 days, issues stay', async () => {
    const [ev] = await storeAll(s, long, [exceptionEvent('Error', 'ninety days', { fn: 'ninety' })]);
    const issue = await issueOfEvent(s, long.id, ev);
    expect(await count('SELECT count(*)::int AS n FROM ingest_outcomes', [])).toBeGreaterThan(0);
    clock.advance(91 * DAY);
    await s.scheduler.runNow(RETENTION_JOB);
    expect(await count('SELECT count(*)::int AS n FROM ingest_outcomes', [])).toBe(0);
    expect(await eventsOf(long)).toBe(0);
    expect(await eventsOf(short)).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM issue_hourly', [])).toBe(0);
    const shown = (await s.api('GET', `/api/v1/issues/${issue}`)).json();
    expect(shown).toMatchObject({ id: issue, count: 1 });
    expect(shown.hourly.every((h: { count: number }) => h.count === 0)).toBe(true);
    expect(await count('SELECT count(*)::int AS n FROM issues WHERE project_id = ANY($1::bigint[])', [[short.id, long.id]])).toBe(3);
    expect((await s.api('GET', `/api/v1/projects/${long.id}/releases`)).statusCode).toBe(200);
  });
});
