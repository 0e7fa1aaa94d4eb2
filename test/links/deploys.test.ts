/**
 * Releases from the deploys of linked apps and aliases: `<app>@<release number>` and `<alias>@<deploy id>`, with
 * the deploy's time; duplicates, out-of-order times and failed deploys in the list; each release created once when
 * two nodes poll at once and when a node that remembers nothing (a restart) polls again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/test-server.ts';
import { startSecondNode } from '../support/second-node.ts';
import { makeTeam } from '../api/access-fixtures.ts';
import { createTeamProject, type Project } from '../errors/support/errors-fixtures.ts';
import { DEPLOY_POLL_JOB } from '../../control-plane/links/deploy-poller.ts';
import { LINK_SYNC_JOB } from '../../control-plane/links/link-sync.ts';
import type { FakeDeploy, FakePeers } from './support/fake-peer.ts';
import { linkAsAdmin, startWithPeers } from './support/link-fixtures.ts';

let s: TestServer;
let peers: FakePeers;
let project: Project;
const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 12, minute)).toISOString();

beforeAll(async () => {
  ({ s, peers } = await startWithPeers());
  project = await createTeamProject(s, await makeTeam(s, 'dep'));
  // Newest first, as the peers list them, with a duplicate, a deploy out of order and a failed one.
  await linkAsAdmin(s, peers, project.id, ['web', [
    { id: 'd3', release_number: 3, created_at: at(30), status: 'ready' },
    { id: 'd4', release_number: 4, created_at: at(35), status: 'failed' },
    { id: 'd1', release_number: 1, created_at: at(10), status: 'ready' },
    { id: 'd2', release_number: 2, created_at: at(20), status: 'ready' },
    { id: 'd2', release_number: 2, created_at: at(20), status: 'ready' },
  ]], ['shop', [
    { id: 'p2', alias: 'shop', created_at: at(25), status: 'ready' },
    { id: 'p1', alias: 'shop', created_at: at(5), status: 'ready' },
  ]]);
}, 60_000);
afterAll(async () => {
  await s?.close();
  await peers?.close();
});

async function releases(): Promise<Record<string, string>> {
  const r = await s.api('GET', `/api/v1/projects/${project.id}/releases?limit=200`);
  expect(r.statusCode).toBe(200);
  return Object.fromEntries((r.json().items as { version: string; created_at: string }[]).map((x) => [x.version, x.created_at]));
}

describe('deploy polling', () => {
  it('creates each release once, with the deploy\'s time, when two nodes poll at once', async () => {
    const second = await startSecondNode(s, 'control-plane', peers.env);
    try {
      await Promise.all([s.scheduler.runNow(DEPLOY_POLL_JOB), second.scheduler.runNow(DEPLOY_POLL_JOB)]);
    } finally {
      await second.close();
    }
    expect(await releases()).toEqual({
      'web@1': at(10), 'web@2': at(20), 'web@3': at(30),
      'shop@p1': at(5), 'shop@p2': at(25),
    });
    const r = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM releases WHERE project_id = $1', [project.id]);
    expect(r.rows[0].n).toBe(5);
    const links = (await s.api('GET', `/api/v1/projects/${project.id}/links`)).json().items as { target: string; last_deploy_at: string }[];
    expect(Object.fromEntries(links.map((l) => [l.target, l.last_deploy_at]))).toEqual({ web: at(35), shop: at(25) });
  });

  it('after a restart reads from the watermark and creates only the new deploys', async () => {
    const web = peers.apps.targets.get('web')!;
    web.deploys.unshift({ id: 'd5', release_number: 5, created_at: at(50), status: 'ready' } satisfies FakeDeploy);
    const restarted = await startSecondNode(s, 'control-plane', peers.env);
    const pages = () => peers.apps.to('/api/v1/apps/web/deploys').length;
    const read: number[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const before = pages();
        await restarted.scheduler.runNow(DEPLOY_POLL_JOB);
        read.push(pages() - before);
      }
    } finally {
      await restarted.close();
    }
    const got = await releases();
    expect(Object.keys(got).sort()).toEqual(['shop@p1', 'shop@p2', 'web@1', 'web@2', 'web@3', 'web@5']);
    expect(got['web@5']).toBe(at(50));
    // Six deploys are three pages of two; a poll stops at the first page wholly older than its watermark (35, then 50).
    expect(read).toEqual([3, 2]);
  });

  it('reads nothing wrong from a peer that answers garbage, and keeps going with the other links', async () => {
    peers.apps.mode = 'garbage';
    peers.pages.targets.get('shop')!.deploys.unshift({ id: 'p3', alias: 'shop', created_at: at(55), status: 'ready' });
    try {
      await s.scheduler.runNow(DEPLOY_POLL_JOB);
    } finally {
      peers.apps.mode = 'ok';
    }
    const got = await releases();
    expect(got['shop@p3']).toBe(at(55));
    expect(Object.keys(got)).toHaveLength(7);
  });

  it("moves the release an alias's pages report to its newest deploy, never back, and re-sends the script", async () => {
    const shop = peers.pages.targets.get('shop')!;
    const scriptPath = '/api/v1/aliases/shop/scripts/errors';
    // Linked while p2 was the newest deploy; the last poll read p3.
    expect(peers.pages.to(scriptPath).map((x) => (x.body as { release: string }).release)).toEqual(['shop@p2', 'shop@p2']);
    const release = async () => ((await s.api('GET', `/api/v1/projects/${project.id}/links`)).json().items as { target: string; release: string | null }[]).find((l) => l.target === 'shop')!.release;
    expect(await release()).toBe('shop@p3');
    await s.scheduler.runNow(LINK_SYNC_JOB);
    expect(shop.linked).toMatchObject({ release: 'shop@p3' });
    expect(peers.pages.to(scriptPath).at(-1)).toMatchObject({ method: 'PUT', who: 'service', query: {} });
    // The release the pages report is one the poller created.
    expect(Object.keys(await releases())).toContain('shop@p3');

    // A newer deploy that failed does not move it, and nothing is re-sent.
    shop.deploys.unshift({ id: 'p4', alias: 'shop', created_at: at(58), status: 'failed' });
    const sent = peers.pages.to(scriptPath).length;
    await s.scheduler.runNow(DEPLOY_POLL_JOB);
    await s.scheduler.runNow(LINK_SYNC_JOB);
    expect(await release()).toBe('shop@p3');
    expect(peers.pages.to(scriptPath)).toHaveLength(sent);
    expect(Object.keys(await releases())).not.toContain('shop@p4');
  });
});
