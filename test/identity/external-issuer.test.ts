/**
 * A separate identity issuer (SVC_ID_URL, or SVC_ID_JWKS_URL with SVC_ID_ISSUER): its access tokens are accepted,
 * verified against its JWKS (rotated keys followed), mapped to the user of the same name with this service's roles
 * and the token's scope; a name with no user is refused unless auto-provisioning is on; this service's own tokens
 * keep working beside them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, expectError, setRole } from '../api/identity-fixtures.ts';
import { startFakeIssuer, type FakeIssuer } from '../fakes/fake-oidc-issuer.ts';
import { signIn } from './access-token-fixtures.ts';

const AUD = 'svc-api';
const clock = new ManualClock(Date.now());
let idp: FakeIssuer;
let evil: FakeIssuer;
let s: TestServer;
let team: string;

beforeAll(async () => {
  idp = await startFakeIssuer(clock);
  evil = await startFakeIssuer(clock, { kid: idp.kid });
  s = await startTestServer({ clock, env: { SVC_ID_URL: idp.url, SVC_ID_AUDIENCE: AUD } });
  await createUser(s, 'alice');
  team = await createTeam(s, 'payments');
  await setRole(s, team, 'alice', 'admin');
});
afterAll(async () => {
  await s?.close();
  await Promise.all([idp?.close(), evil?.close()]);
});

const me = (server: TestServer, token: string) => server.api('GET', '/api/v1/users/me', undefined, bearer(token));

describe('a separate identity issuer', () => {
  it("accepts its tokens as the user of the same name, with this service's roles and the token's scope", async () => {
    const token = await idp.sign({ aud: AUD, sub: 'u-123', preferred_username: 'alice', scope: 'openid deploy' });
    const res = await me(s, token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ username: 'alice', scope: 'deploy', teams: [{ id: team, role: 'admin' }] });
    // This service's own access tokens work beside them.
    expect((await me(s, (await signIn(s, 'alice')).access)).statusCode).toBe(200);
  });

  it('refuses a name with no user, another audience, an expired token and a foreign key under the same kid', async () => {
    expectError(await me(s, await idp.sign({ aud: AUD, sub: 'nobody' })), 401, 'invalid_token');
    expectError(await me(s, await idp.sign({ aud: 'elsewhere', sub: 'alice' })), 401, 'invalid_token');
    const old = await idp.sign({ aud: AUD, sub: 'alice' }, { ttlS: 60 });
    clock.advance(61_000);
    expectError(await me(s, old), 401, 'token_expired');
    expectError(await me(s, await evil.sign({ aud: AUD, sub: 'alice' }, { iss: idp.url })), 401, 'invalid_token');
  });

  it('follows a rotation of its keys', async () => {
    await idp.rotate();
    expect((await me(s, await idp.sign({ aud: AUD, sub: 'alice' }))).statusCode).toBe(200);
  });

  it('provisions unknown users when asked to, with an explicit JWKS URL and issuer', async () => {
    const other = await startTestServer({ clock, env: { SVC_ID_JWKS_URL: `${idp.url}/jwks`, SVC_ID_ISSUER: idp.url, SVC_ID_AUDIENCE: AUD, SVC_ID_AUTO_PROVISION: 'true' } });
    try {
      const res = await me(other, await idp.sign({ aud: AUD, sub: 'u-9', preferred_username: 'newcomer' }));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ username: 'newcomer', scope: 'read', is_superuser: false, teams: [] });
      expectError(await me(other, await idp.sign({ aud: AUD, sub: 'bad name with spaces' })), 401, 'invalid_token');
    } finally {
      await other.close();
    }
  });
});
