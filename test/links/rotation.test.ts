/**
 * DSN rotation re-links every linked app and alias in the same request (and restarts the apps when asked); a peer
 * that is down leaves its link stale with the error, and the links job retries it until the peer takes the DSN.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import type { TestServer } from '../support/test-server.ts';
import { makeTeam } from '../api/access-fixtures.ts';
import { createTeamProject, waitFor, type Project } from '../errors/support/errors-fixtures.ts';
import { LINK_SYNC_JOB } from '../../control-plane/links/link-sync.ts';
import type { FakePeers } from './support/fake-peer.ts';
import { linkAsAdmin, startWithPeers } from './support/link-fixtures.ts';

let s: TestServer;
let peers: FakePeers;
let project: Project;
// Real time, moved by hand: the peers check our access tokens' expiry against their own clock.
const clock = new ManualClock(Date.now());

interface LinkState {
  kind: string;
  target: string;
  state: string;
  last_error: string | null;
  restart_requested: boolean;
}

beforeAll(async () => {
  ({ s, peers } = await startWithPeers({ clock }));
  project = await createTeamProject(s, await makeTeam(s, 'rot'));
  await linkAsAdmin(s, peers, project.id, ['web'], ['shop']);
}, 60_000);
afterAll(async () => {
  await s?.close();
  await peers?.close();
});

const states = (links: LinkState[]) => links.map((l) => [l.target, l.state]).sort((a, b) => (a[0] < b[0] ? -1 : 1));

describe('rotating the DSN', () => {
  it('re-links the app and the alias with the new DSN and restarts the app when asked', async () => {
    const res = await s.api('POST', `/api/v1/projects/${project.id}/keys`, { restart: true });
    expect(res.statusCode, res.body).toBe(201);
    const rotated = res.json() as { dsn: string; public_key: string; links: LinkState[] };
    expect(states(rotated.links)).toEqual([['shop', 'ok'], ['web', 'ok']]);
    expect(rotated.links.every((l) => !l.restart_requested)).toBe(true);
    expect(peers.apps.targets.get('web')!.linked).toEqual({ dsn: rotated.dsn, project: String(project.id), errors_url: s.url });
    expect(peers.pages.targets.get('shop')!.linked).toEqual({ src: `${s.url}/js/${rotated.public_key}.js`, release: null, environment: 'production' });
    expect(peers.apps.targets.get('web')!.restarts).toBe(1);
    expect(peers.apps.sent.slice(-2).map((x) => [x.method, x.path, x.who])).toEqual([
      ['PUT', '/api/v1/apps/web/integrations/errors', 'service'],
      ['POST', '/api/v1/apps/web/restart', 'service'],
    ]);
  });

  it('restarts nothing unless asked', async () => {
    const res = await s.api('POST', `/api/v1/projects/${project.id}/keys`);
    expect(res.statusCode, res.body).toBe(201);
    expect(peers.apps.targets.get('web')!.restarts).toBe(1);
  });

  it('marks a link whose peer is down stale and retries it until the peer takes the new DSN', async () => {
    peers.pages.mode = 'down';
    const res = await s.api('POST', `/api/v1/projects/${project.id}/keys`);
    const rotated = res.json() as { public_key: string; links: LinkState[] };
    expect(states(rotated.links)).toEqual([['shop', 'stale'], ['web', 'ok']]);
    expect(rotated.links.find((l) => l.target === 'shop')!.last_error).toMatch(/The pages service .* could not be reached/);
    const listed = (await s.api('GET', `/api/v1/projects/${project.id}/links`)).json().items as LinkState[];
    expect(states(listed)).toEqual([['shop', 'stale'], ['web', 'ok']]);

    // Still down at the next due attempt: still stale, retried later.
    clock.advance(60_000);
    await s.scheduler.runNow(LINK_SYNC_JOB);
    expect(states((await s.api('GET', `/api/v1/projects/${project.id}/links`)).json().items)).toEqual([['shop', 'stale'], ['web', 'ok']]);

    // The team is told once, when the link turned stale (webhooks and notifications: link.stale).
    const told = await s.db.query<{ payload: { link: { target: string }; error: string } }>("SELECT payload FROM outbox WHERE kind = 'link.stale'");
    expect(told.rows.map((r) => r.payload.link.target)).toEqual(['shop']);
    expect(told.rows[0].payload.error).toMatch(/could not be reached/);

    peers.pages.mode = 'ok';
    clock.advance(60 * 60_000);
    await s.scheduler.runNow(LINK_SYNC_JOB);
    const after = (await s.api('GET', `/api/v1/projects/${project.id}/links`)).json().items as LinkState[];
    expect(after.map((l) => [l.state, l.last_error])).toEqual([['ok', null], ['ok', null]]);
    expect(peers.pages.targets.get('shop')!.linked).toMatchObject({ src: `${s.url}/js/${rotated.public_key}.js` });
    const attempts = peers.pages.to('/api/v1/aliases/shop/scripts/errors').filter((x) => (x.body as { src?: string }).src?.includes(rotated.public_key));
    expect(attempts.length).toBeGreaterThanOrEqual(3);
  });

  it('restarts an app once, after the newest DSN, when a rotation lands while the links job is re-linking it', async () => {
    const other = await createTeamProject(s, await makeTeam(s, 'rot2'));
    await linkAsAdmin(s, peers, other.id, ['api'], ['docs']);
    const api = peers.apps.targets.get('api')!;
    const keys = `/api/v1/projects/${other.id}/keys`;
    // A rotation with a restart while the apps service is down: the link waits for the links job.
    peers.apps.mode = 'down';
    const first = (await s.api('POST', keys, { restart: true })).json() as { dsn: string };
    peers.apps.mode = 'ok';
    // The job's pass is sending the first new DSN (slowly) when a second rotation arrives.
    peers.apps.delayMs = 300;
    const sent = peers.apps.sent.length;
    clock.advance(60_000);
    const pass = s.scheduler.runNow(LINK_SYNC_JOB);
    await waitFor(async () => peers.apps.sent.slice(sent).some((x) => x.method === 'PUT' && (x.body as { dsn?: string }).dsn === first.dsn));
    const second = await s.api('POST', keys);
    expect(second.statusCode, second.body).toBe(201);
    await pass;
    peers.apps.delayMs = 0;
    clock.advance(60_000);
    await s.scheduler.runNow(LINK_SYNC_JOB);

    const calls = peers.apps.sent.slice(sent).filter((x) => x.path.startsWith('/api/v1/apps/api/')).map((x) => (x.method === 'PUT' ? `PUT ${(x.body as { dsn: string }).dsn}` : x.method));
    const newest = (second.json() as { dsn: string }).dsn;
    expect(calls).toEqual([`PUT ${first.dsn}`, `PUT ${newest}`, 'POST']);
    expect(api.restarts).toBe(1);
    expect(api.linked).toMatchObject({ dsn: newest });
    const link = ((await s.api('GET', `/api/v1/projects/${other.id}/links`)).json().items as LinkState[]).find((l) => l.target === 'api')!;
    expect(link).toMatchObject({ state: 'ok', restart_requested: false });
  });
});
