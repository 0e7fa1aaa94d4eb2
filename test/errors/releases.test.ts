/** Releases: registered by CI with a deploy token, listed with first/last seen and new issues; resolve in next release. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { expectErrorCode, makeTeam, makeUser } from '../api/access-fixtures.ts';
import { createTeamProject, exceptionEvent, issueOfEvent, storeAll, type Project } from './support/errors-fixtures.ts';

let s: TestServer;
let p: Project;
let ci: { id: string; headers: Record<string, string> };
let reader: { id: string; headers: Record<string, string> };
let viewerCi: { id: string; headers: Record<string, string> };
let outsider: { id: string; headers: Record<string, string> };

beforeAll(async () => {
  s = await startTestServer();
  const team = await makeTeam(s, 'builds');
  const rival = await makeTeam(s, 'builds-rival');
  ci = await makeUser(s, 'rel-ci', { [team]: 'member' }, 'deploy');
  reader = await makeUser(s, 'rel-reader', { [team]: 'member' }, 'read');
  viewerCi = await makeUser(s, 'rel-viewer', { [team]: 'viewer' }, 'deploy');
  outsider = await makeUser(s, 'rel-outsider', { [rival]: 'owner' });
  p = await createTeamProject(s, 'builds');
});
afterAll(async () => s?.close());

const register = (body: Record<string, unknown>, headers: Record<string, string> = ci.headers) => s.api('POST', `/api/v1/projects/${p.id}/releases`, body, headers);

describe('POST /api/v1/projects/{id}/releases', () => {
  it('registers with a deploy token (201), and again (200, ref and url updated)', async () => {
    const res = await register({ version: 'web@1.0.0', ref: 'a1b2c3d', url: 'https://ci.example.com/runs/1', created_at: '2026-01-10T08:00:00Z' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      version: 'web@1.0.0', project: p.id, registered: true, ref: 'a1b2c3d', url: 'https://ci.example.com/runs/1',
      created_at: '2026-01-10T08:00:00.000Z', first_seen: null, last_seen: null, new_issues: 0,
    });
    const again = await register({ version: 'web@1.0.0', url: 'https://ci.example.com/runs/2' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ ref: 'a1b2c3d', url: 'https://ci.example.com/runs/2', created_at: '2026-01-10T08:00:00.000Z' });
  });

  it('refuses bad versions, links and times with precise codes', async () => {
    for (const version of ['', 'v1\n', 'v1\u0000', 'tab\tbed', ' 1.0', '1.0 ', '.', 'x'.repeat(251), 'line\u2028sep']) {
      expectErrorCode(await register({ version }), 400, 'invalid_release_version');
    }
    expectErrorCode(await register({ version: '1.0', url: 'ftp://ci.example.com/1' }), 400, 'validation_failed');
    expectErrorCode(await register({ version: '1.0', url: 'not a url' }), 400, 'validation_failed');
    expectErrorCode(await register({ version: '1.0', created_at: 'yesterday' }), 400, 'validation_failed');
    expectErrorCode(await register({ version: '1.0', notes: 'x' }), 400, 'validation_failed');
    expect((await register({ version: 'x'.repeat(250) })).statusCode).toBe(201);
  });

  it('is refused to read tokens, viewers and other teams', async () => {
    expectErrorCode(await register({ version: '9.0' }, reader.headers), 403, 'insufficient_scope');
    expectErrorCode(await register({ version: '9.0' }, viewerCi.headers), 403, 'forbidden');
    expectErrorCode(await register({ version: '9.0' }, outsider.headers), 404, 'not_found');
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/releases`, undefined, outsider.headers), 404, 'not_found');
    expect((await s.api('GET', `/api/v1/projects/${p.id}/releases`, undefined, reader.headers)).statusCode).toBe(200);
  });
});

describe('GET /api/v1/projects/{id}/releases', () => {
  it('lists newest first with first/last seen and new issues, in pages', async () => {
    const q = await createTeamProject(s, 'builds');
    const base = Math.floor(Date.now() / 1000) * 1000 - 24 * 3_600_000;
    const t = (hour: number) => new Date(base + hour * 3_600_000).toISOString();
    // Seen in events: 2.0 (two new issues), then 2.1 (one issue already known, one new).
    await storeAll(s, q, [
      exceptionEvent('Error', 'one', { fn: 'one' }, { release: '2.0', timestamp: t(10) }),
      exceptionEvent('Error', 'two', { fn: 'two' }, { release: '2.0', timestamp: t(11) }),
    ]);
    await storeAll(s, q, [
      exceptionEvent('Error', 'one', { fn: 'one' }, { release: '2.1', timestamp: t(12) }),
      exceptionEvent('Error', 'three', { fn: 'three' }, { release: '2.1', timestamp: t(13) }),
    ]);
    const reg = await s.api('POST', `/api/v1/projects/${q.id}/releases`, { version: '2.0', ref: 'v2.0' }, ci.headers);
    expect(reg.statusCode, reg.body).toBe(200);

    const page1 = (await s.api('GET', `/api/v1/projects/${q.id}/releases?limit=1`)).json();
    expect(page1.items).toEqual([expect.objectContaining({ version: '2.1', registered: false, new_issues: 1, first_seen: t(12), last_seen: t(13) })]);
    const page2 = (await s.api('GET', `/api/v1/projects/${q.id}/releases?limit=1&cursor=${page1.next_cursor}`)).json();
    expect(page2.items).toEqual([expect.objectContaining({ version: '2.0', registered: true, ref: 'v2.0', new_issues: 2, first_seen: t(10), last_seen: t(11) })]);
    expect(page2.next_cursor).toBeNull();
  });

  it('gives "resolved in next release" its meaning: a release registered later regresses the issue', async () => {
    const q = await createTeamProject(s, 'builds');
    const ev = (release: string) => exceptionEvent('Error', 'checkout fails', { fn: 'checkout' }, { release });
    const [first] = await storeAll(s, q, [ev('3.0')]);
    const issue = await issueOfEvent(s, q.id, first);
    expect((await s.api('POST', `/api/v1/projects/${q.id}/releases`, { version: '3.1' }, ci.headers)).statusCode).toBe(201);
    const resolved = (await s.api('PATCH', `/api/v1/issues/${issue}`, { state: 'resolved_in_next_release' })).json();
    expect(resolved).toMatchObject({ state: 'resolved_in_next_release', resolved_in_release: '3.1' });

    await storeAll(s, q, [ev('3.0'), ev('3.1')]);
    expect((await s.api('GET', `/api/v1/issues/${issue}`)).json()).toMatchObject({ state: 'resolved_in_next_release', count: 3, regressed: false });

    expect((await s.api('POST', `/api/v1/projects/${q.id}/releases`, { version: '3.2' }, ci.headers)).statusCode).toBe(201);
    await storeAll(s, q, [ev('3.2')]);
    expect((await s.api('GET', `/api/v1/issues/${issue}`)).json()).toMatchObject({ state: 'unresolved', count: 4, regressed: true, last_release: '3.2' });
  });
});
