/**
 * Issues: filters, sorts with keyset cursors, one issue with its hourly counts, state and assignee changes (one and
 * bulk), the events of an issue and one stored event, bad input and permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { expectErrorCode, makeTeam, makeUser } from '../api/access-fixtures.ts';
import { createTeamProject, exceptionEvent, issueOfEvent, storeAll, type Project } from './support/errors-fixtures.ts';

const HOUR = 3_600_000;
const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 30, 0));
let s: TestServer;
let p: Project;
let other: Project;
let ids: { a: string; b: string; c: string };
let aEvents: string[];
let member: { id: string; headers: Record<string, string> };
let reader: { id: string; headers: Record<string, string> };
let viewer: { id: string; headers: Record<string, string> };
let outsider: { id: string; headers: Record<string, string> };

const ago = (ms: number) => new Date(clock.now() - ms).toISOString();

beforeAll(async () => {
  s = await startTestServer({ clock });
  const team = await makeTeam(s, 'triage');
  const rival = await makeTeam(s, 'rival');
  member = await makeUser(s, 'tri-member', { [team]: 'member' });
  reader = await makeUser(s, 'tri-reader', { [team]: 'member' }, 'read');
  viewer = await makeUser(s, 'tri-viewer', { [team]: 'viewer' });
  outsider = await makeUser(s, 'tri-outsider', { [rival]: 'owner' });
  p = await createTeamProject(s, 'triage');
  other = await createTeamProject(s, 'rival');

  const a = (user: string, at: number) => exceptionEvent('TypeError', 'a is undefined', { file: 'src/checkout.js', fn: 'pay' }, { release: '1.0', environment: 'production', user: { id: user }, timestamp: ago(at), extra: { password: 'hunter2-secret' } });
  // Two events of A in the first hour, the rest five hours later (hourly counts by receive time).
  aEvents = await storeAll(s, p, [a('u1', 3 * HOUR), a('u2', 2.5 * HOUR)]);
  clock.advance(5 * HOUR);
  aEvents.push(...(await storeAll(s, p, [a('u1', 7 * HOUR)])));
  const [b] = await storeAll(s, p, [exceptionEvent('RangeError', 'bad range', { file: 'src/cart.js', fn: 'add' }, { level: 'warning', release: '1.1', environment: 'staging', user: { id: 'u3' }, timestamp: ago(HOUR) })]);
  const msg = (at: number) => ({ event_id: crypto.randomUUID().replaceAll('-', ''), level: 'fatal', message: 'disk full on host 42', environment: 'production', timestamp: ago(at) });
  const [c] = await storeAll(s, p, [msg(20 * 60_000), msg(10 * 60_000)]);
  ids = { a: await issueOfEvent(s, p.id, aEvents[0]), b: await issueOfEvent(s, p.id, b), c: await issueOfEvent(s, p.id, c) };
});
afterAll(async () => s?.close());

const list = async (query: string, headers: Record<string, string> = {}) => {
  const res = await s.api('GET', `/api/v1/projects/${p.id}/issues?${query}`, undefined, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: Array<{ id: string; [k: string]: unknown }>; next_cursor: string | null };
};
const listIds = async (query: string, headers: Record<string, string> = {}) => (await list(query, headers)).items.map((i) => i.id);

/** Every page with limit=1, following next_cursor. */
async function walk(sort: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '';
  for (let i = 0; i < 10; i++) {
    const page = await list(`sort=${sort}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
    out.push(...page.items.map((x) => x.id));
    if (!page.next_cursor) return out;
    cursor = page.next_cursor;
  }
  throw new Error('too many pages');
}

describe('GET /api/v1/projects/{id}/issues', () => {
  it('sorts by last_seen, first_seen, count and people, each with its own cursor', async () => {
    expect(await walk('last_seen')).toEqual([ids.c, ids.b, ids.a]);
    expect(await walk('first_seen')).toEqual([ids.c, ids.b, ids.a]);
    expect(await walk('count')).toEqual([ids.a, ids.c, ids.b]);
    expect(await walk('people')).toEqual([ids.a, ids.b, ids.c]);
    const page = await list('sort=count&limit=1');
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/issues?sort=people&cursor=${page.next_cursor}`), 400, 'invalid_cursor');
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/issues?sort=loudest`), 400, 'validation_failed');
  });

  it('filters by level, release, environment, title text and state', async () => {
    expect(await listIds('level=fatal')).toEqual([ids.c]);
    expect(await listIds('level=warning')).toEqual([ids.b]);
    expect(await listIds('release=1.0')).toEqual([ids.a]);
    expect(await listIds('release=9.9')).toEqual([]);
    expect(await listIds('environment=staging')).toEqual([ids.b]);
    expect((await listIds('environment=production')).sort()).toEqual([ids.a, ids.c].sort());
    expect(await listIds('q=RANGE')).toEqual([ids.b]);
    expect(await listIds('q=%25')).toEqual([]);
    expect((await listIds('state=unresolved')).length).toBe(3);
    expect(await listIds('state=resolved,ignored')).toEqual([]);
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/issues?state=closed`), 400, 'invalid_issue_state');
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/issues?level=loud`), 400, 'validation_failed');
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/issues?regressed=maybe`), 400, 'validation_failed');
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/issues?assignee=bob`), 400, 'validation_failed');
  });

  it('filters by assignee (me, none) and regressed', async () => {
    expect((await s.api('PATCH', `/api/v1/issues/${ids.a}`, { assignee: 'me' }, member.headers)).json().assignee).toBe(member.id);
    expect(await listIds('assignee=me', member.headers)).toEqual([ids.a]);
    expect(await listIds('assignee=me', viewer.headers)).toEqual([]);
    expect((await listIds('assignee=none')).sort()).toEqual([ids.b, ids.c].sort());
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/issues?assignee=me`), 422, 'assignee_needs_user');

    expect((await s.api('PATCH', `/api/v1/issues/${ids.b}`, { state: 'resolved' })).json().state).toBe('resolved');
    await storeAll(s, p, [exceptionEvent('RangeError', 'bad range', { file: 'src/cart.js', fn: 'add' }, { release: '1.1', environment: 'staging' })]);
    expect(await listIds('regressed=true')).toEqual([ids.b]);
    expect((await listIds('regressed=false')).sort()).toEqual([ids.a, ids.c].sort());
  });
});

describe('GET /api/v1/issues/{id}', () => {
  it('shows the issue with hourly counts (24 h by default, up to 90 days)', async () => {
    const res = await s.api('GET', `/api/v1/issues/${ids.a}`, undefined, viewer.headers);
    expect(res.statusCode, res.body).toBe(200);
    const issue = res.json();
    expect(issue).toMatchObject({
      id: ids.a, project: p.id, title: 'TypeError: a is undefined', level: 'error', state: 'unresolved', count: 3, people: 2,
      first_release: '1.0', last_release: '1.0', regressed: false, first_seen: ago(8 * HOUR), last_seen: ago(7 * HOUR),
    });
    expect(issue.culprit).toContain('pay');
    expect(issue.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(issue.hourly).toHaveLength(24);
    expect(issue.hourly[23].hour).toBe('2026-01-15T17:00:00.000Z');
    expect(issue.hourly[23].count).toBe(1);
    expect(issue.hourly[18]).toEqual({ hour: '2026-01-15T12:00:00.000Z', count: 2 });
    expect(issue.hourly.reduce((n: number, h: { count: number }) => n + h.count, 0)).toBe(3);

    const long = (await s.api('GET', `/api/v1/issues/${ids.a}?hours=2160`)).json();
    expect(long.hourly).toHaveLength(2160);
    expect((await s.api('GET', `/api/v1/issues/${ids.a}?hours=2`)).json().hourly.map((h: { count: number }) => h.count)).toEqual([0, 1]);
    expectErrorCode(await s.api('GET', `/api/v1/issues/${ids.a}?hours=2161`), 400, 'validation_failed');
    expectErrorCode(await s.api('GET', `/api/v1/issues/${ids.a}?hours=0`), 400, 'validation_failed');
    expectErrorCode(await s.api('GET', '/api/v1/issues/0000'), 404, 'not_found');
  });
});

describe('PATCH /api/v1/issues/{id}', () => {
  it('changes the state, with ignore_until_count for ignored', async () => {
    const resolved = (await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'resolved' }, member.headers)).json();
    expect(resolved).toMatchObject({ state: 'resolved', resolved_at: new Date(clock.now()).toISOString() });
    const ignored = (await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'ignored', ignore_until_count: 5 })).json();
    expect(ignored).toMatchObject({ state: 'ignored', ignore_until_count: 5, ignore_remaining: 5, resolved_at: null });
    expect((await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'unresolved' })).json()).toMatchObject({ state: 'unresolved', ignore_until_count: null });
  });

  it('assigns only "me" or nobody', async () => {
    expect((await s.api('PATCH', `/api/v1/issues/${ids.c}`, { assignee: 'me' }, member.headers)).json().assignee).toBe(member.id);
    expect((await s.api('PATCH', `/api/v1/issues/${ids.c}`, { assignee: member.id }, member.headers)).json().assignee).toBe(member.id);
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { assignee: viewer.id }, member.headers), 422, 'assignee_not_allowed');
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { assignee: 'someone-else' }, member.headers), 422, 'assignee_not_allowed');
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { assignee: 'me' }), 422, 'assignee_needs_user');
    const both = (await s.api('PATCH', `/api/v1/issues/${ids.c}`, { assignee: null, state: 'resolved' }, member.headers)).json();
    expect(both).toMatchObject({ assignee: null, state: 'resolved' });
  });

  it('refuses unknown states, bad ignore counts and empty or unknown fields with precise codes', async () => {
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'closed' }), 400, 'invalid_issue_state');
    for (const n of [0, -3, 1.5, 2_000_000_000]) {
      expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'ignored', ignore_until_count: n }), 400, 'invalid_ignore_count');
    }
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'resolved', ignore_until_count: 3 }), 400, 'invalid_ignore_count');
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, {}), 400, 'validation_failed');
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'resolved', colour: 'red' }), 400, 'validation_failed');
  });

  it('is refused to read tokens, viewers and other teams', async () => {
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'resolved' }, reader.headers), 403, 'insufficient_scope');
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'resolved' }, viewer.headers), 403, 'forbidden');
    expectErrorCode(await s.api('PATCH', `/api/v1/issues/${ids.c}`, { state: 'resolved' }, outsider.headers), 404, 'not_found');
    expectErrorCode(await s.api('GET', `/api/v1/issues/${ids.c}`, undefined, outsider.headers), 404, 'not_found');
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/issues`, undefined, outsider.headers), 404, 'not_found');
    expect((await s.api('GET', `/api/v1/issues/${ids.c}`, undefined, reader.headers)).statusCode).toBe(200);
  });
});

describe('PATCH /api/v1/projects/{id}/issues (bulk)', () => {
  it('changes every listed issue, or none when one is not in the project', async () => {
    const res = await s.api('PATCH', `/api/v1/projects/${p.id}/issues`, { ids: [ids.a, ids.b, ids.a], state: 'ignored' }, member.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items.map((i: { id: string; state: string }) => [i.id, i.state]).sort()).toEqual([[ids.a, 'ignored'], [ids.b, 'ignored']].sort());

    const [foreign] = await storeAll(s, other, [exceptionEvent('Error', 'elsewhere')]);
    const foreignIssue = await issueOfEvent(s, other.id, foreign);
    const refused = await s.api('PATCH', `/api/v1/projects/${p.id}/issues`, { ids: [ids.a, foreignIssue, 'abc'], state: 'resolved' });
    expectErrorCode(refused, 404, 'not_found');
    expect(refused.json().error.details.missing.sort()).toEqual([foreignIssue, 'abc'].sort());
    expect((await s.api('GET', `/api/v1/issues/${ids.a}`)).json().state).toBe('ignored');

    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${p.id}/issues`, { ids: [ids.a], state: 'resolved' }, reader.headers), 403, 'insufficient_scope');
    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${p.id}/issues`, { ids: [], state: 'resolved' }), 400, 'validation_failed');
    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${p.id}/issues`, { ids: [ids.a], state: 'gone' }), 400, 'invalid_issue_state');
    const back = await s.api('PATCH', `/api/v1/projects/${p.id}/issues`, { ids: [ids.a, ids.b], state: 'unresolved', assignee: null }, member.headers);
    expect(back.json().items.every((i: { state: string; assignee: null }) => i.state === 'unresolved' && i.assignee === null)).toBe(true);
  });
});

describe('events', () => {
  it("lists an issue's events newest first, with paging", async () => {
    const first = (await s.api('GET', `/api/v1/issues/${ids.a}/events?limit=2`)).json();
    expect(first.items).toHaveLength(2);
    expect(first.items[0]).toMatchObject({ event_id: aEvents[2], issue: ids.a, project: p.id, release: '1.0', environment: 'production', level: 'error' });
    expect(first.items[0].data).toBeUndefined();
    const second = (await s.api('GET', `/api/v1/issues/${ids.a}/events?limit=2&cursor=${first.next_cursor}`)).json();
    expect(second.items).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    expect(new Set([...first.items, ...second.items].map((e: { event_id: string }) => e.event_id))).toEqual(new Set(aEvents));
  });

  it('shows one event as stored, scrubbed, by plain or dashed id', async () => {
    const id = aEvents[0];
    const res = await s.api('GET', `/api/v1/events/${id}`, undefined, viewer.headers);
    expect(res.statusCode, res.body).toBe(200);
    const ev = res.json();
    expect(ev).toMatchObject({ event_id: id, issue: ids.a, project: p.id, title: 'TypeError: a is undefined' });
    expect(ev.data.exception).toBeDefined();
    expect(JSON.stringify(ev)).not.toContain('hunter2-secret');
    const dashed = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
    expect((await s.api('GET', `/api/v1/events/${dashed.toUpperCase()}`)).json().event_id).toBe(id);
    expect((await s.api('GET', `/api/v1/events/${id}?project=${p.id}`)).statusCode).toBe(200);
    expectErrorCode(await s.api('GET', `/api/v1/events/${id}?project=${other.id}`), 404, 'not_found');
    expectErrorCode(await s.api('GET', '/api/v1/events/not-an-id'), 400, 'invalid_event_id');
    expectErrorCode(await s.api('GET', `/api/v1/events/${id}`, undefined, outsider.headers), 404, 'not_found');
    expectErrorCode(await s.api('GET', `/api/v1/issues/${ids.a}/events`, undefined, outsider.headers), 404, 'not_found');
  });
});
