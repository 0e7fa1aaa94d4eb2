/**
 * Linking projects to apps and pages aliases against local fakes of the two services (support/fake-peer.ts): the
 * exact payloads sent, the dry run with the person's own access token, refused rights, unknown targets, unlink, and
 * a peer that answers garbage, is down or does not answer (502, nothing half-linked).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { startWithPeers } from './support/link-fixtures.ts';
import { makeTeam, makeUser, expectErrorCode } from '../api/access-fixtures.ts';
import { createTeamProject, type Project } from '../errors/support/errors-fixtures.ts';
import type { FakePeer, FakePeers } from './support/fake-peer.ts';

let s: TestServer;
let peers: FakePeers;
let apps: FakePeer;
let pages: FakePeer;
let team: string;
let project: Project;
let alice: { id: string; headers: Record<string, string> };

beforeAll(async () => {
  ({ s, peers } = await startWithPeers({ env: { SVC_PEER_TIMEOUT_MS: '500' } }));
  ({ apps, pages } = peers);
  team = await makeTeam(s, 'shop');
  project = await createTeamProject(s, team);
  alice = await makeUser(s, 'alice', { [team]: 'member' });
  for (const name of ['web', 'api', 'flaky']) apps.add(name);
  for (const name of ['shop', 'docs']) pages.add(name);
  apps.allow('web', alice.id);
  apps.allow('flaky', alice.id);
  pages.allow('shop', alice.id);
}, 60_000);
afterAll(async () => {
  await s?.close();
  await peers?.close();
});

const linkPath = (kind: 'apps' | 'aliases', target: string, id = project.id) => `/api/v1/projects/${id}/links/${kind}/${target}`;

describe('linking an app', () => {
  it('asks the apps service with the person\'s token, then links with ours, sending the project\'s DSN', async () => {
    const res = await s.api('PUT', linkPath('apps', 'web'), {}, alice.headers);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ kind: 'app', target: 'web', project: project.id, state: 'ok', last_error: null });
    const body = { dsn: project.dsn, project: String(project.id), errors_url: s.url };
    expect(apps.to('/api/v1/apps/web/integrations/errors')).toEqual([
      { method: 'PUT', path: '/api/v1/apps/web/integrations/errors', query: { dry_run: 'true' }, who: `caller:${alice.id}`, body },
      { method: 'PUT', path: '/api/v1/apps/web/integrations/errors', query: {}, who: 'service', body },
    ]);
    expect(apps.targets.get('web')!.linked).toEqual(body);
  });

  it('is refused with 403 naming the peer\'s answer when the person may not change the app there', async () => {
    const before = apps.sent.length;
    const res = await s.api('PUT', linkPath('apps', 'api'), {}, alice.headers);
    expectErrorCode(res, 403, 'link_refused');
    expect(res.json().error.message).toMatch(/apps service refused.*403 forbidden: You may not change api/);
    expect(apps.sent.slice(before).map((x) => x.who)).toEqual([`caller:${alice.id}`]);
    expect(apps.targets.get('api')!.linked).toBeNull();
  });

  it('answers 404 not_found naming the apps service for an app it does not have', async () => {
    const res = await s.api('PUT', linkPath('apps', 'nope'), {}, alice.headers);
    expectErrorCode(res, 404, 'not_found');
    expect(res.json().error.message).toMatch(/The apps service has no app "nope"/);
    expect(res.json().error.details).toMatchObject({ peer: 'apps', peer_status: 404 });
  });

  it('refuses an app already linked to another project', async () => {
    const other = await createTeamProject(s, team);
    const res = await s.api('PUT', linkPath('apps', 'web', other.id));
    expectErrorCode(res, 409, 'link_taken');
  });
});

describe('linking a pages alias', () => {
  it('sends the reporting script URL, the release of the newest deploy and the environment', async () => {
    // The newest deploy failed: the alias still serves p7, so its pages report shop@p7.
    pages.targets.get('shop')!.deploys.push(
      { id: 'p8', alias: 'shop', created_at: '2026-11-20T12:40:00Z', status: 'failed' },
      { id: 'p7', alias: 'shop', created_at: '2026-11-20T12:30:00Z', status: 'ready' },
      { id: 'p6', alias: 'shop', created_at: '2026-11-20T12:20:00Z', status: 'ready' },
    );
    const before = pages.sent.length;
    const res = await s.api('PUT', linkPath('aliases', 'shop'), { environment: 'staging' }, alice.headers);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ kind: 'alias', release: 'shop@p7' });
    const body = { src: `${s.url}/js/${project.public_key}.js`, release: 'shop@p7', environment: 'staging' };
    expect(pages.sent.slice(before).map((x) => [x.method, x.path, x.query, x.who, x.body])).toEqual([
      ['GET', '/api/v1/deploys', { alias: 'shop', cursor: '' }, 'service', null],
      ['PUT', '/api/v1/aliases/shop/scripts/errors', { dry_run: 'true' }, `caller:${alice.id}`, body],
      ['PUT', '/api/v1/aliases/shop/scripts/errors', {}, 'service', body],
    ]);
    const script = await fetch(body.src);
    expect(script.status).toBe(200);
  });

  it('sends a null release for an alias that has no deploy yet', async () => {
    pages.add('fresh');
    pages.allow('fresh', alice.id);
    const other = await createTeamProject(s, team);
    const res = await s.api('PUT', linkPath('aliases', 'fresh', other.id), {}, alice.headers);
    expect(res.statusCode, res.body).toBe(201);
    expect(pages.targets.get('fresh')!.linked).toEqual({ src: `${s.url}/js/${other.public_key}.js`, release: null, environment: 'production' });
  });

  it('answers 404 naming the pages service for an alias it does not have, before asking with the person\'s token', async () => {
    const before = pages.sent.length;
    const res = await s.api('PUT', linkPath('aliases', 'nope'), {}, alice.headers);
    expectErrorCode(res, 404, 'not_found');
    expect(res.json().error.message).toMatch(/The pages service has no alias "nope"/);
    expect(pages.sent.slice(before).map((x) => x.who)).toEqual(['service']);
  });

  it('lists the project\'s links with their state', async () => {
    const res = await s.api('GET', `/api/v1/projects/${project.id}/links`, undefined, alice.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((l: { kind: string; target: string; state: string; release: string | null }) => [l.kind, l.target, l.state, l.release])).toEqual([['app', 'web', 'ok', null], ['alias', 'shop', 'ok', 'shop@p7']]);
  });
});

describe('a peer that fails', () => {
  for (const mode of ['garbage', 'down', 'hang'] as const) {
    it(`answers 502 and links nothing when the peer is ${mode}`, async () => {
      apps.mode = mode;
      try {
        const res = await s.api('PUT', linkPath('apps', 'flaky'), {}, alice.headers);
        expectErrorCode(res, 502, mode === 'garbage' ? 'peer_bad_response' : 'peer_unreachable');
        expect(res.json().error.message).toMatch(/The apps service \(http:\/\/127\.0\.0\.1:\d+\)/);
      } finally {
        apps.mode = 'ok';
      }
      expect(apps.targets.get('flaky')!.linked).toBeNull();
      const list = await s.api('GET', `/api/v1/projects/${project.id}/links`);
      expect(list.json().items.map((l: { target: string }) => l.target)).not.toContain('flaky');
    });
  }
});

describe('unlinking', () => {
  it('removes the integration on the peer and the link here', async () => {
    const res = await s.api('DELETE', linkPath('apps', 'web'), undefined, alice.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(apps.targets.get('web')!.linked).toBeNull();
    expect(apps.sent.at(-1)).toMatchObject({ method: 'DELETE', path: '/api/v1/apps/web/integrations/errors', who: 'service' });
    const again = await s.api('DELETE', linkPath('apps', 'web'), undefined, alice.headers);
    expectErrorCode(again, 404, 'not_found');
  });
});

describe('without configuration', () => {
  it('answers 503 integration_not_configured naming the settings', async () => {
    const bare = await startTestServer();
    try {
      const p = await createTeamProject(bare, await makeTeam(bare, 'bare'));
      const res = await bare.api('PUT', `/api/v1/projects/${p.id}/links/apps/web`, {});
      expectErrorCode(res, 503, 'integration_not_configured');
      expect(res.json().error.message).toMatch(/SVC_APPS_URL and SVC_APPS_TOKEN/);
    } finally {
      await bare.close();
    }
  });
});

describe('the outbound guard', () => {
  it('refuses a peer on a private address unless SVC_ALLOW_PRIVATE_PEERS is set, naming the setting', async () => {
    const guarded = await startTestServer({ env: { ...peers.env, SVC_ALLOW_PRIVATE_PEERS: 'false' } });
    try {
      const p = await createTeamProject(guarded, await makeTeam(guarded, 'guarded'));
      const res = await guarded.api('PUT', `/api/v1/projects/${p.id}/links/apps/web`, {});
      expectErrorCode(res, 502, 'peer_unreachable');
      expect(res.json().error.message).toMatch(/private address.*SVC_ALLOW_PRIVATE_PEERS=true/);
    } finally {
      await guarded.close();
    }
  });
});

describe('bad input', () => {
  it('refuses a target that no peer could name, before calling it', async () => {
    const before = apps.sent.length;
    const res = await s.api('PUT', linkPath('apps', '..%2Fadmin'), {}, alice.headers);
    expectErrorCode(res, 400, 'validation_failed');
    expect(apps.sent.length).toBe(before);
  });

  it('refuses a viewer of the project before asking the peer', async () => {
    const viewer = await makeUser(s, 'vera', { [team]: 'viewer' });
    const before = pages.sent.length;
    const res = await s.api('PUT', linkPath('aliases', 'docs'), {}, viewer.headers);
    expect(res.statusCode).toBe(403);
    expect(pages.sent.length).toBe(before);
  });
});
