/** svc errors links … and svc errors projects rotate-key --restart, the real CLI against a server with fake peers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/test-server.ts';
import { makeTeam } from '../api/access-fixtures.ts';
import { createTeamProject, type Project } from '../errors/support/errors-fixtures.ts';
import { runSvc } from '../cli/run-svc.ts';
import type { FakePeers } from './support/fake-peer.ts';
import { startWithPeers } from './support/link-fixtures.ts';

let s: TestServer;
let peers: FakePeers;
let project: Project;
let env: Record<string, string>;

beforeAll(async () => {
  ({ s, peers } = await startWithPeers());
  project = await createTeamProject(s, await makeTeam(s, 'cli'), { slug: 'web-shop' });
  peers.apps.add('front');
  peers.apps.allow('front', 'admin');
  peers.pages.add('shop', [{ id: 'p1', alias: 'shop', created_at: '2026-11-20T12:00:00Z', status: 'ready' }]);
  peers.pages.allow('shop', 'admin');
  env = { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: s.url, SVC_TOKEN: ADMIN_TOKEN };
}, 60_000);
afterAll(async () => {
  await s?.close();
  await peers?.close();
});

describe('svc errors links', () => {
  it('links an app and an alias, lists them, rotates with --restart and unlinks', async () => {
    expect(await runSvc(['errors', 'links', 'link-app', 'web-shop', 'front'], env)).toMatchObject({ code: 0, stdout: `Linked project ${project.id} to app front.\n` });
    expect((await runSvc(['errors', 'links', 'link-alias', 'web-shop', 'shop', '--environment', 'staging'], env)).stdout).toBe(`Linked project ${project.id} to alias shop (environment staging).\n`);
    const listed = await runSvc(['errors', 'links', 'list', 'web-shop'], env);
    expect(listed.stdout).toMatch(/^KIND +TARGET +ENVIRONMENT +STATE +RELEASE +LAST DEPLOY/);
    expect(listed.stdout).toMatch(/app +front +- +ok +- /);
    expect(listed.stdout).toMatch(/alias +shop +staging +ok +shop@p1 /);

    const rotated = await runSvc(['errors', 'projects', 'rotate-key', 'web-shop', '--restart'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/app +front +\S+ +ok/);
    expect(peers.apps.targets.get('front')!.restarts).toBe(1);

    expect((await runSvc(['errors', 'links', 'unlink-app', 'web-shop', 'front'], env)).stdout).toBe(`Unlinked project ${project.id} from app front.\n`);
    const json = JSON.parse((await runSvc(['errors', 'links', 'list', 'web-shop', '--json'], env)).stdout);
    expect(json.items.map((l: { target: string }) => l.target)).toEqual(['shop']);
  });

  it('says what a refusal of the peer means', async () => {
    peers.apps.add('locked');
    const r = await runSvc(['errors', 'links', 'link-app', 'web-shop', 'locked'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('(code link_refused, HTTP 403)');
  });

  it('has --help on every links command', async () => {
    const commands = [['errors', 'links'], ...['list', 'link-app', 'link-alias', 'unlink-app', 'unlink-alias'].map((c) => ['errors', 'links', c])];
    for (const c of commands) {
      const r = await runSvc([...c, '--help'], env);
      expect(r.code, c.join(' ')).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: svc ${c.join(' ')} `));
    }
  });
});
