/**
 * The CI job of docs/identity.md, end to end: a GitHub-shaped job token exchanged at /oauth/token through a trust
 * rule, then `svc errors releases create` with the access token in SVC_TOKEN, against a listening server; no stored
 * secret anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, setRole, tokenFor } from '../api/identity-fixtures.ts';
import { githubClaims, startFakeIssuer, type FakeIssuer } from '../fakes/fake-oidc-issuer.ts';
import { systemClock } from '../../core/clock.ts';
import { runSvc } from './run-svc.ts';

let s: TestServer;
let issuer: FakeIssuer;

beforeAll(async () => {
  s = await startTestServer({ listen: true, env: { SVC_ALLOW_PRIVATE_ISSUERS: 'true' } });
  issuer = await startFakeIssuer(systemClock);
  await createUser(s, 'ada');
  await createTeam(s, 'shop');
  await setRole(s, 'shop', 'ada', 'admin');
  const ada = (await tokenFor(s, 'ada', 'write')).secret;
  expect((await s.api('POST', '/api/v1/projects', { name: 'web-shop' }, { 'x-svc-team': 'shop' })).statusCode).toBe(201);
  const rule = await s.api('POST', '/api/v1/trust-rules', { name: 'release', issuer: issuer.url, conditions: { repository_owner_id: '9100', ref: 'refs/heads/main' } }, { ...bearer(ada), 'x-svc-team': 'shop' });
  expect(rule.statusCode, rule.body).toBe(201);
});
afterAll(async () => {
  await s?.close();
  await issuer?.close();
});

describe('a CI job with no stored secret', () => {
  it('exchanges its job token and registers a release with svc', async () => {
    const job = await issuer.sign(githubClaims(s.url));
    const res = await fetch(`${s.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token_type: 'urn:ietf:params:oauth:token-type:jwt', resource: 'shop', subject_token: job }),
    });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    const r = await runSvc(['errors', 'releases', 'create', 'web-shop', '1.4.2', '--ref', 'abc123', '--json'], { SVC_URL: s.url, SVC_TOKEN: access_token, HOME: '/nonexistent' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ version: '1.4.2', ref: 'abc123' });
    // The same token cannot change what a deploy scope does not allow.
    const key = await runSvc(['ai', 'keys', 'create', '--name', 'k', '--team', 'shop'], { SVC_URL: s.url, SVC_TOKEN: access_token, HOME: '/nonexistent' });
    expect(key.code).toBe(1);
    expect(key.stderr).toContain('insufficient_scope');
  });
});
