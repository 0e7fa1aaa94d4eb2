/**
 * Two control-plane nodes on one Postgres and one Redis: an access token issued by one is accepted by the other
 * (shared signing keys), and signing out on one node stops the session's access tokens on the other at once
 * (the revocation reaches it through the cache bus, not by the cache's TTL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../server/build-server.ts';
import { startSecondNode } from '../support/second-node.ts';
import { REAL_PG, REAL_REDIS } from '../support/test-db.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createUser } from '../api/identity-fixtures.ts';
import { oauthPost, signIn } from './access-token-fixtures.ts';

const multi = Boolean(REAL_PG && REAL_REDIS);

describe.skipIf(!multi)('access tokens on two nodes', () => {
  let a: TestServer;
  let b: Server;

  beforeAll(async () => {
    a = await startTestServer();
    b = await startSecondNode(a, 'control-plane');
    await createUser(a, 'alice');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const meOnB = (token: string) => b.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) });

  it('a sign-out on one node revokes the session on the other', async () => {
    const t = await signIn(a, 'alice');
    // Node B knows the key and caches the session as standing.
    expect((await meOnB(t.access)).statusCode).toBe(200);
    expect((await meOnB(t.access)).statusCode).toBe(200);

    expect((await oauthPost(a, '/oauth/revoke', { token: t.refresh })).statusCode).toBe(200);
    // The bus delivers within milliseconds; the cache's TTL (30 s) would be far longer than this wait.
    await expect.poll(async () => (await meOnB(t.access)).statusCode, { timeout: 5000, interval: 20 }).toBe(401);
    expect((await meOnB(t.access)).json().error.code).toBe('token_revoked');
  });
});
