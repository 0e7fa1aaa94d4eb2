/**
 * Deleting a project unlinks its apps and aliases on the peers first (the unlink endpoint's own call), best effort:
 * a peer that is down or hangs does not block the delete beyond the peer timeout; the failure is in the answer, told
 * to the team (link.stale) and kept for the links job, which retries it until the peer confirms, never unlinks a
 * target linked again meanwhile, and gives up after 7 days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import type { TestServer } from '../support/test-server.ts';
import { makeTeam } from '../api/access-fixtures.ts';
import { createTeamProject, type Project } from '../errors/support/errors-fixtures.ts';
import { LINK_SYNC_JOB } from '../../control-plane/links/link-sync.ts';
import type { FakePeers } from './support/fake-peer.ts';
import { linkAsAdmin, startWithPeers } from './support/link-fixtures.ts';

let s: TestServer;
let peers: FakePeers;
let team: string;
// Real time, moved by hand: the peers check our access tokens' expiry against their own clock.
const clock = new ManualClock(Date.now());

interface Outcome { kind: string; target: string; state: string; error: string | null }

beforeAll(async () => {
  ({ s, peers } = await startWithPeers({ clock, env: { SVC_PEER_TIMEOUT_MS: '500' } }));
  team = await makeTeam(s, 'del');
}, 60_000);
afterAll(async () => {
  await s?.close();
  await peers?.close();
});

async function deleteProject(p: Project): Promise<{ links: Outcome[] }> {
  const res = await s.api('DELETE', `/api/v1/projects/${p.id}`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ id: p.id });
  return res.json();
}
const removals = async () => (await s.db.query<{ kind: string; target: string; attempts: number; last_error: string | null }>('SELECT kind, target, attempts, last_error FROM link_removals ORDER BY kind, target')).rows;
const unlinksOf = (path: string) => [...peers.apps.sent, ...peers.pages.sent].filter((x) => x.method === 'DELETE' && x.path === path);

describe('deleting a linked project', () => {
  it('unlinks its app and alias on the peers first, with our token, and says so', async () => {
    const p = await createTeamProject(s, team);
    await linkAsAdmin(s, peers, p.id, ['web'], ['shop']);
    const { links } = await deleteProject(p);
    expect(links.map((l) => [l.kind, l.target, l.state, l.error]).sort()).toEqual([['alias', 'shop', 'unlinked', null], ['app', 'web', 'unlinked', null]]);
    expect(peers.apps.targets.get('web')!.linked).toBeNull();
    expect(peers.pages.targets.get('shop')!.linked).toBeNull();
    expect(unlinksOf('/api/v1/apps/web/integrations/errors').map((x) => x.who)).toEqual(['service']);
    expect(await removals()).toEqual([]);
    expect((await s.api('GET', `/api/v1/projects/${p.id}/links`)).statusCode).toBe(404);
  });

  it('goes on when a peer is down or hangs, within the peer timeout, and keeps the unlink for later', async () => {
    const p = await createTeamProject(s, team);
    await linkAsAdmin(s, peers, p.id, ['api'], ['docs']);
    peers.pages.mode = 'hang';
    peers.apps.mode = 'down';
    const started = Date.now();
    let links: Outcome[];
    try {
      ({ links } = await deleteProject(p));
    } finally {
      peers.pages.mode = 'ok';
      peers.apps.mode = 'ok';
    }
    // Both peers at once (8 at a time), each cut at SVC_PEER_TIMEOUT_MS = 500.
    expect(Date.now() - started).toBeLessThan(3_000);
    const byTarget = Object.fromEntries(links.map((l) => [l.target, l]));
    expect(Object.keys(byTarget).sort()).toEqual(['api', 'docs']);
    expect(byTarget.api).toMatchObject({ kind: 'app', state: 'pending', error: expect.stringMatching(/^The apps service .* could not be reached/) });
    expect(byTarget.docs).toMatchObject({ kind: 'alias', state: 'pending', error: expect.stringMatching(/^The pages service .* did not answer within 500 ms/) });
    expect((await removals()).map((r) => [r.kind, r.target, r.attempts])).toEqual([['alias', 'docs', 1], ['app', 'api', 1]]);
    expect((await s.db.query('SELECT 1 FROM projects WHERE id = $1', [p.id])).rowCount).toBe(0);

    // The team is told once per link, through the outbox.
    const told = await s.db.query<{ payload: { link: { target: string; project: number }; error: string } }>("SELECT payload FROM outbox WHERE kind = 'link.stale' ORDER BY payload->'link'->>'target'");
    expect(told.rows.map((r) => [r.payload.link.target, r.payload.link.project])).toEqual([['api', p.id], ['docs', p.id]]);
    expect(told.rows[0].payload.error).toMatch(/^The project was deleted; unlinking failed and is retried: /);

    // Not before the backoff; then the links job unlinks both and forgets them.
    await s.scheduler.runNow(LINK_SYNC_JOB);
    expect(peers.apps.targets.get('api')!.linked).not.toBeNull();
    clock.advance(6_000);
    await s.scheduler.runNow(LINK_SYNC_JOB);
    expect(peers.apps.targets.get('api')!.linked).toBeNull();
    expect(peers.pages.targets.get('docs')!.linked).toBeNull();
    expect(await removals()).toEqual([]);
  });

  it('never unlinks a target that was linked again meanwhile', async () => {
    const p = await createTeamProject(s, team);
    await linkAsAdmin(s, peers, p.id, ['cart'], ['blog']);
    peers.pages.mode = 'down';
    try {
      await deleteProject(p);
    } finally {
      peers.pages.mode = 'ok';
    }
    expect((await removals()).map((r) => r.target)).toEqual(['blog']);
    const other = await createTeamProject(s, team);
    const res = await s.api('PUT', `/api/v1/projects/${other.id}/links/aliases/blog`, {});
    expect(res.statusCode, res.body).toBe(201);
    expect(await removals()).toEqual([]);
    const before = unlinksOf('/api/v1/aliases/blog/scripts/errors').length;
    clock.advance(60_000);
    await s.scheduler.runNow(LINK_SYNC_JOB);
    expect(unlinksOf('/api/v1/aliases/blog/scripts/errors')).toHaveLength(before);
    expect(peers.pages.targets.get('blog')!.linked).toMatchObject({ src: `${s.url}/js/${other.public_key}.js` });
  });

  it('refuses to link a target while a retry is unlinking it, and gives up after 7 days', async () => {
    const p = await createTeamProject(s, team);
    await linkAsAdmin(s, peers, p.id, ['shelf'], ['wiki']);
    peers.apps.mode = 'down';
    try {
      await deleteProject(p);
    } finally {
      peers.apps.mode = 'ok';
    }
    // A retry in flight holds the removal.
    await s.db.query("UPDATE link_removals SET leased_until = $1 WHERE target = 'shelf'", [new Date(clock.now() + 60_000)]);
    const other = await createTeamProject(s, team);
    const res = await s.api('PUT', `/api/v1/projects/${other.id}/links/apps/shelf`, {});
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'conflict', details: { kind: 'app', target: 'shelf' } });
    expect(res.json().error.message).toMatch(/app "shelf" is being unlinked from a deleted project right now; try again in a few seconds/);

    peers.apps.mode = 'down';
    try {
      clock.advance(8 * 24 * 3_600_000);
      const before = unlinksOf('/api/v1/apps/shelf/integrations/errors').length;
      await s.scheduler.runNow(LINK_SYNC_JOB);
      expect(unlinksOf('/api/v1/apps/shelf/integrations/errors')).toHaveLength(before);
    } finally {
      peers.apps.mode = 'ok';
    }
    expect(await removals()).toEqual([]);
  });
});
