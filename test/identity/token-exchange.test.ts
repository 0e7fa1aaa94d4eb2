/**
 * Token exchange (RFC 8693) through trust rules, against local fake OIDC issuers: a GitHub-shaped job registers a
 * release with no stored secret; no rule, two rules, wrong audience, expired, no jti, bad signature, alg none, another
 * issuer's token with the same kid, a replayed jti, a creator who lost their role, a deleted rule, rotated issuer
 * keys; rule creation refuses unbound rules; every exchange is listed.
 */
import { generateKeyPair, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, expectError, setRole, tokenFor } from '../api/identity-fixtures.ts';
import { githubClaims, gitlabClaims, startFakeIssuer, type FakeIssuer } from '../fakes/fake-oidc-issuer.ts';
import { oauthPost } from './access-token-fixtures.ts';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const clock = new ManualClock(Date.now());
let s: TestServer;
let github: FakeIssuer;
let gitlab: FakeIssuer;
let evil: FakeIssuer;
let ada: string;
let adaToken: string;
let project: string;
let aud: string;

beforeAll(async () => {
  s = await startTestServer({ clock, env: { SVC_ALLOW_PRIVATE_ISSUERS: 'true', SVC_PUBLIC_URL: 'https://svc.example.test' } });
  aud = s.ctx.config.publicUrl;
  github = await startFakeIssuer(clock);
  gitlab = await startFakeIssuer(clock);
  // Another issuer that publishes a key under the same kid as the GitHub fake.
  evil = await startFakeIssuer(clock, { kid: github.kid });
  ada = await createUser(s, 'ada');
  await createTeam(s, 'shop');
  await setRole(s, 'shop', 'ada', 'admin');
  adaToken = (await tokenFor(s, 'ada', 'write')).secret;
  const p = await s.api('POST', '/api/v1/projects', { name: 'shop-web' }, { 'x-svc-team': 'shop' });
  expect(p.statusCode, p.body).toBe(201);
  project = p.json().id;
});
afterAll(async () => {
  await Promise.all([github?.close(), gitlab?.close(), evil?.close()]);
  await s?.close();
});

const createRule = (body: Record<string, unknown>, token = adaToken) => s.api('POST', '/api/v1/trust-rules', body, { ...bearer(token), 'x-svc-team': 'shop' });
const exchange = (subjectToken: string, team = 'shop', extra: Record<string, string> = {}) => oauthPost(s, '/oauth/token', { grant_type: EXCHANGE, subject_token: subjectToken, subject_token_type: JWT_TYPE, resource: team, ...extra });
const refusal = async (subjectToken: string, team = 'shop') => {
  const res = await exchange(subjectToken, team);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json().error).toBe('invalid_grant');
  return res.json().error_description as string;
};

let deployRule: string;

describe('trust rules', () => {
  it('refuse a rule that binds no owner exactly, the admin token and non-admins', async () => {
    expectError(await createRule({ name: 'any', issuer: github.url, conditions: { repository: 'acme/shop' } }), 400, 'trust_rule_unbound');
    expectError(await createRule({ name: 'glob', issuer: github.url, conditions: { repository_owner_id: '91*' } }), 400, 'trust_rule_unbound');
    expectError(await s.api('POST', '/api/v1/trust-rules', { name: 'x', issuer: github.url, conditions: { repository_owner_id: '9100' } }, { 'x-svc-team': 'shop' }), 403, 'forbidden');
    const bob = await createUser(s, 'bob');
    await setRole(s, 'shop', bob, 'member');
    expectError(await createRule({ name: 'x', issuer: github.url, conditions: { repository_owner_id: '9100' } }, (await tokenFor(s, 'bob', 'write')).secret), 403, 'forbidden');
    expectError(await createRule({ name: 'x', issuer: `${github.url}/nope`, conditions: { repository_owner_id: '9100' } }), 400, 'invalid_issuer');
    expectError(await createRule({ name: 'x', issuer: github.url, conditions: { repository_owner_id: '9100' }, ttl: '1h' }), 400, 'invalid_ttl');
  });

  it('a GitHub job exchanges its token and registers a release with no stored secret', async () => {
    const r = await createRule({ name: 'deploy-main', issuer: github.url, conditions: { repository_owner_id: '9100', repository: 'acme/shop', ref: 'refs/heads/*' } });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json()).toMatchObject({ scope: 'deploy', ttl: 900, audience: aud, created_by: ada });
    deployRule = r.json().id;

    const res = await exchange(await github.sign(githubClaims(aud)));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 900, scope: 'deploy' });
    const access = res.json().access_token as string;
    expect(decodeJwt(access)).toMatchObject({ sub: `rule:${deployRule}`, sid: deployRule, scope: 'deploy', act: { iss: github.url, sub: 'repo:acme/shop:environment:production' } });
    const release = await s.api('POST', `/api/v1/projects/${project}/releases`, { version: '1.4.0' }, bearer(access));
    expect(release.statusCode, release.body).toBe(201);
    expectError(await s.api('POST', '/api/v1/keys', { name: 'k' }, { ...bearer(access), 'x-svc-team': 'shop' }), 403, 'insufficient_scope');

    const listed = await s.api('GET', '/api/v1/trust-exchanges?team=shop', undefined, bearer(adaToken));
    expect(listed.json().items[0]).toMatchObject({ rule: deployRule, token_id: decodeJwt(access).jti, claims: { repository_owner_id: '9100', repository: 'acme/shop', ref: 'refs/heads/main' } });
  });

  it('accepts a job token once (its jti)', async () => {
    const job = await github.sign(githubClaims(aud));
    expect((await exchange(job)).statusCode).toBe(200);
    expect(await refusal(job)).toMatch(/already exchanged/);
  });

  it('refuses precisely: no rule, no match, wrong audience, expired, bad signature, alg none, same kid from another issuer', async () => {
    expect(await refusal(await gitlab.sign(gitlabClaims(aud)))).toMatch(/No trust rule of the team shop accepts tokens from the issuer/);
    expect(await refusal(await github.sign(githubClaims(aud, { repository_owner_id: '666' })))).toMatch(/rule deploy-main: repository_owner_id is "666", not "9100"/);
    expect(await refusal(await github.sign(githubClaims(aud, { ref: 'refs/tags/v1/x' })))).toMatch(/ref is .* not matching "refs\/heads\/\*"/);
    expect(await refusal(await github.sign(githubClaims('https://elsewhere.example')))).toMatch(/audience/);
    const old = await github.sign(githubClaims(aud), { ttlS: 60 });
    clock.advance(61_000);
    expect(await refusal(old)).toMatch(/expired/);
    expect(await refusal(await github.sign(githubClaims(aud, { jti: undefined })))).toMatch(/jti claim/);
    const stranger = (await generateKeyPair('RS256')).privateKey;
    expect(await refusal(await github.sign(githubClaims(aud), { key: stranger }))).toMatch(/signature/);
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const now = Math.floor(clock.now() / 1000);
    const body = Buffer.from(JSON.stringify({ ...githubClaims(aud), iss: github.url, iat: now, exp: now + 300, jti: 'none-1' })).toString('base64url');
    expect(await refusal(`${header}.${body}.`)).toMatch(/algorithm|not a valid/);
    // Signed by another issuer with a key under the same kid, claiming to come from the GitHub fake.
    expect(await refusal(await evil.sign(githubClaims(aud), { iss: github.url }))).toMatch(/signature/);
    expect(await refusal(await evil.sign(githubClaims(aud)))).toMatch(/No trust rule/);
  });

  it('refuses when two rules match, naming both', async () => {
    const second = await createRule({ name: 'deploy-prod', issuer: github.url, conditions: { repository_id: '74001', environment: 'production' }, scope: 'read' });
    expect(second.statusCode, second.body).toBe(201);
    expect(await refusal(await github.sign(githubClaims(aud)))).toMatch(/2 trust rules match .*deploy-main, deploy-prod/);
    expect((await s.api('DELETE', `/api/v1/trust-rules/${second.json().id}`, undefined, bearer(adaToken))).statusCode).toBe(200);
  });

  it('follows the issuer rotating its keys', async () => {
    await github.rotate();
    const before = github.jwksFetches;
    expect((await exchange(await github.sign(githubClaims(aud)))).statusCode).toBe(200);
    expect(github.jwksFetches).toBe(before + 1);
  });

  it('keeps exchanging with the cached keys while the issuer is down, but not for a kid it never saw', async () => {
    github.down = true;
    try {
      clock.advance(2 * 60 * 60_000);
      expect((await exchange(await github.sign(githubClaims(aud)))).statusCode).toBe(200);
      expect(await refusal(await github.sign(githubClaims(aud), { kid: 'never-published' }))).toMatch(/could not be read|No key/);
    } finally {
      github.down = false;
    }
  });

  it('a GitLab job matches a rule on namespace_id with a glob on the ref', async () => {
    const r = await createRule({ name: 'gitlab', issuer: gitlab.url, conditions: { namespace_id: '72', ref: 'release/**', ref_protected: 'true' }, scope: 'read', ttl: '5m' });
    expect(r.statusCode, r.body).toBe(201);
    const ok = await exchange(await gitlab.sign(gitlabClaims(aud, { ref: 'release/2026/11' })));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ scope: 'read', expires_in: 300 });
    expect(await refusal(await gitlab.sign(gitlabClaims(aud, { ref: 'main' })))).toMatch(/ref is "main"/);
  });

  it("disables a rule whose creator lost the role its scope needs, and a deleted rule's tokens stop at once", async () => {
    const access = (await exchange(await github.sign(githubClaims(aud)))).json().access_token as string;
    expect((await s.api('GET', `/api/v1/projects/${project}/releases`, undefined, bearer(access))).statusCode).toBe(200);
    await setRole(s, 'shop', 'ada', 'viewer');
    expect(await refusal(await github.sign(githubClaims(aud)))).toMatch(/disabled: its creator no longer has a role/);
    expect((await s.api('GET', `/api/v1/trust-rules/${deployRule}`)).json()).toMatchObject({ disabled: true });
    await setRole(s, 'shop', 'ada', 'admin');
    expect((await s.api('GET', `/api/v1/trust-rules/${deployRule}`)).json()).toMatchObject({ disabled: false });
    expect((await s.api('DELETE', `/api/v1/trust-rules/${deployRule}`, undefined, bearer(adaToken))).statusCode).toBe(200);
    expectError(await s.api('GET', `/api/v1/projects/${project}/releases`, undefined, bearer(access)), 401, 'token_revoked');
    expect(await refusal(await github.sign(githubClaims(aud)))).toMatch(/No trust rule/);
  });

  it('answers bad requests with OAuth error fields', async () => {
    const job = await github.sign(githubClaims(aud));
    const cases: [Record<string, string>, number, string][] = [
      [{ grant_type: EXCHANGE, subject_token_type: JWT_TYPE, resource: 'shop' }, 400, 'invalid_request'],
      [{ grant_type: EXCHANGE, subject_token: job, subject_token_type: 'urn:ietf:params:oauth:token-type:saml2', resource: 'shop' }, 400, 'invalid_request'],
      [{ grant_type: EXCHANGE, subject_token: job, subject_token_type: JWT_TYPE }, 400, 'invalid_request'],
      [{ grant_type: EXCHANGE, subject_token: job, subject_token_type: JWT_TYPE, resource: 'no-such-team' }, 400, 'invalid_target'],
      [{ grant_type: EXCHANGE, subject_token: 'not-a-jwt', subject_token_type: JWT_TYPE, resource: 'shop' }, 400, 'invalid_grant'],
      [{ grant_type: EXCHANGE, subject_token: `eyJ${'a'.repeat(9000)}`, subject_token_type: JWT_TYPE, resource: 'shop' }, 400, 'invalid_grant'],
    ];
    for (const [params, status, error] of cases) {
      const res = await oauthPost(s, '/oauth/token', params);
      expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error });
    }
  });
});
