/**
 * Two server processes on one Postgres and one Redis (one server or a cluster): a change on one node reaches the
 * other node's caches within 1 s, and the schedulers run on exactly one node, with the other taking over when the
 * leader stops. Run by two-nodes.test.ts (one Redis) and test/scale/redis-cluster.test.ts (a Redis Cluster); needs
 * DATABASE_URL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomHex } from '../../core/ids.ts';
import { spawnNode, type NodeProcess } from '../support/spawn-node.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';

export function twoNodesCases(redisUrl: () => string): void {
  let tdb: TestDatabase;
  let a: NodeProcess;
  let b: NodeProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    env = { DATABASE_URL: tdb.url as string, REDIS_URL: redisUrl(), SVC_REDIS_PREFIX: `t${randomHex(4)}:`, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY };
    // Sequential start so that migrations and the first-start admin are created once.
    a = await spawnNode('all', env);
    b = await spawnNode('all', env);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await tdb?.db.close();
    await tdb?.drop();
  });

  const call = (node: NodeProcess, method: string, path: string, token: string, body?: unknown) =>
    fetch(node.url + path, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });

  it('drops a revoked token from the other node cache within 1 s', async () => {
    const user = await (await call(a, 'POST', '/api/v1/users', ADMIN_TOKEN, { username: `u${randomHex(3)}`, password: 'a-long-password' })).json();
    const created = await (await call(a, 'POST', '/api/v1/tokens', ADMIN_TOKEN, { name: 'n', scope: 'read', user: user.id })).json();
    // Node B caches the token as valid.
    expect((await call(b, 'GET', '/api/v1/users/me', created.token)).status).toBe(200);
    expect((await call(b, 'GET', '/api/v1/users/me', created.token)).status).toBe(200);

    expect((await call(a, 'DELETE', `/api/v1/tokens/${created.id}`, ADMIN_TOKEN)).status).toBe(200);
    const t0 = performance.now();
    let status = 200;
    while (performance.now() - t0 < 2000) {
      status = (await call(b, 'GET', '/api/v1/users/me', created.token)).status;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(401);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('runs the schedulers on exactly one node, and the other takes over when it stops', async () => {
    const nodeOf = async (n: NodeProcess) => (await (await fetch(`${n.url}/api/v1/meta`)).json()).node as string;
    const [idA, idB] = await Promise.all([nodeOf(a), nodeOf(b)]);
    const leader = async () => (await tdb.db.query<{ node: string }>('SELECT node FROM scheduler_leader')).rows[0]?.node;
    let first: string | undefined;
    for (let i = 0; i < 50 && !first; i++) {
      first = await leader();
      if (!first) await new Promise((r) => setTimeout(r, 100));
    }
    expect([idA, idB]).toContain(first);
    // Stable: the other node does not take the lock while the leader lives.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await leader()).toBe(first);

    const [gone, other, otherId] = first === idA ? [a, b, idB] : [b, a, idA];
    expect(await gone.stop()).toBe(0);
    let next: string | undefined;
    for (let i = 0; i < 100 && next !== otherId; i++) {
      await new Promise((r) => setTimeout(r, 100));
      next = await leader();
    }
    expect(next).toBe(otherId);
    expect((await fetch(`${other.url}/healthz`)).status).toBe(200);
  });
}
