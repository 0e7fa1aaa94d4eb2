/**
 * Retention of recorded token exchanges: after 90 days an exchange goes, unless the job token it consumed is still
 * valid (its row is what refuses the token's jti a second time); deleted trust rules go once no exchange names them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, setRole, tokenFor } from '../api/identity-fixtures.ts';
import { githubClaims, startFakeIssuer, type FakeIssuer } from '../fakes/fake-oidc-issuer.ts';
import { EXCHANGE_RETENTION_JOB } from '../../control-plane/identity/trust/exchange-retention.ts';
import { oauthPost } from './access-token-fixtures.ts';

const DAY_S = 86_400;
const clock = new ManualClock(Date.now());
let s: TestServer;
let issuer: FakeIssuer;
let admin: Record<string, string>;

beforeAll(async () => {
  s = await startTestServer({ clock, env: { SVC_ALLOW_PRIVATE_ISSUERS: 'true', SVC_PUBLIC_URL: 'https://svc.example.test' } });
  issuer = await startFakeIssuer(clock);
  await createUser(s, 'ada');
  await createTeam(s, 'shop');
  await setRole(s, 'shop', 'ada', 'admin');
  admin = { ...bearer((await tokenFor(s, 'ada', 'write', 'never')).secret), 'x-svc-team': 'shop' };
});
afterAll(async () => {
  await issuer?.close();
  await s?.close();
});

const createRule = async (name: string, repositoryId: string) => {
  const r = await s.api('POST', '/api/v1/trust-rules', { name, issuer: issuer.url, conditions: { repository_owner_id: '9100', repository_id: repositoryId } }, admin);
  expect(r.statusCode, r.body).toBe(201);
  return r.json().id as string;
};
const exchange = (token: string) => oauthPost(s, '/oauth/token', {
  grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token_type: 'urn:ietf:params:oauth:token-type:jwt', resource: 'shop', subject_token: token,
});
const rows = async () => (await s.db.query<{ rule_id: string; job_expires_at: Date | null }>('SELECT rule_id, job_expires_at FROM trust_exchanges ORDER BY created_at')).rows;
const ruleIds = async () => (await s.db.query<{ id: string }>('SELECT id FROM trust_rules ORDER BY created_at')).rows.map((r) => r.id);

describe('retention of token exchanges', () => {
  it('keeps exchanges 90 days, and longer while their job token could be presented again', async () => {
    const rule = await createRule('main', '74001');
    const kept = await createRule('kept', '74002');
    const gone = await createRule('gone', '74003');
    const short = await issuer.sign(githubClaims(s.ctx.config.publicUrl), { ttlS: 600 });
    // An issuer that hands out job tokens valid for 200 days.
    const long = await issuer.sign(githubClaims(s.ctx.config.publicUrl, { repository_id: '74002' }), { ttlS: 200 * DAY_S });
    expect((await exchange(short)).statusCode).toBe(200);
    expect((await exchange(long)).statusCode).toBe(200);
    expect((await rows()).map((r) => [r.rule_id, r.job_expires_at?.getTime()])).toEqual([
      [rule, Math.floor(clock.now() / 1000) * 1000 + 600_000],
      [kept, Math.floor(clock.now() / 1000) * 1000 + 200 * DAY_S * 1000],
    ]);
    // Rules deleted now: one named by an exchange, one not.
    expect((await s.api('DELETE', `/api/v1/trust-rules/${kept}`, undefined, admin)).statusCode).toBe(200);
    expect((await s.api('DELETE', `/api/v1/trust-rules/${gone}`, undefined, admin)).statusCode).toBe(200);

    clock.advance(89 * DAY_S * 1000);
    await s.scheduler.runNow(EXCHANGE_RETENTION_JOB);
    expect((await rows()).map((r) => r.rule_id)).toEqual([rule, kept]);
    expect(await ruleIds()).toEqual([rule, kept, gone]);

    clock.advance(2 * DAY_S * 1000);
    await s.scheduler.runNow(EXCHANGE_RETENTION_JOB);
    // The short token's exchange went; the long one's stays while that token is valid, and so does its deleted rule.
    expect((await rows()).map((r) => r.rule_id)).toEqual([kept]);
    expect(await ruleIds()).toEqual([rule, kept]);
    const listed = await s.api('GET', '/api/v1/trust-exchanges?team=shop', undefined, admin);
    expect(listed.json().items.map((x: { rule: string }) => x.rule)).toEqual([kept]);

    // Its jti is still refused a second time (on another live rule too).
    await createRule('kept-again', '74002');
    const replay = await exchange(long);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error_description).toMatch(/already exchanged/);

    clock.advance(110 * DAY_S * 1000);
    await s.scheduler.runNow(EXCHANGE_RETENTION_JOB);
    expect(await rows()).toEqual([]);
    expect(await ruleIds()).not.toContain(kept);
  });
});
