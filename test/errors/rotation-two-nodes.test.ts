/**
 * DSN rotation and project changes reach every node: a proxy node that cached a key as valid refuses it within a
 * second of the rotation on the control plane (cache invalidation over Redis). Needs DATABASE_URL and REDIS_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../server/build-server.ts';
import { REAL_PG, REAL_REDIS } from '../support/test-db.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam } from '../api/access-fixtures.ts';
import { createTeamProject, exceptionEvent, postStore } from './support/errors-fixtures.ts';
import { startSecondNode } from '../support/second-node.ts';

const multi = Boolean(REAL_PG && REAL_REDIS);
if (!multi) console.warn('rotation-two-nodes tests skipped: they need DATABASE_URL and REDIS_URL (two nodes on one Postgres and one Redis)');

describe.skipIf(!multi)('two nodes: DSN rotation and project changes', () => {
  let a: TestServer;
  let b: Server;

  beforeAll(async () => {
    a = await startTestServer();
    b = await startSecondNode(a);
    await makeTeam(a, 'nodes');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** Polls node B until the store answer has `status`; returns how long it took. */
  async function untilStatus(projectId: number, key: string, status: number): Promise<number> {
    const t0 = performance.now();
    let last = 0;
    while (performance.now() - t0 < 3000) {
      last = (await postStore(b, projectId, key, exceptionEvent('Error', 'poll'))).statusCode;
      if (last === status) return performance.now() - t0;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`node B still answers ${last}, not ${status}`);
  }

  it('refuses the rotated key on the other node at once', async () => {
    const p = await createTeamProject(a, 'nodes');
    expect((await postStore(b, p.id, p.public_key, exceptionEvent('Error', 'cached'))).statusCode).toBe(200);
    expect((await b.app.inject({ method: 'GET', url: `/js/${p.public_key}.js` })).statusCode).toBe(200);

    const rotated = await a.api('POST', `/api/v1/projects/${p.id}/keys`);
    expect(rotated.statusCode, rotated.body).toBe(201);
    expect(await untilStatus(p.id, p.public_key, 403)).toBeLessThan(1000);
    expect((await postStore(b, p.id, rotated.json().public_key, exceptionEvent('Error', 'new key'))).statusCode).toBe(200);
    expect((await b.app.inject({ method: 'GET', url: `/js/${p.public_key}.js` })).statusCode).toBe(404);
  });

  it('applies a lowered events-per-minute limit and a deletion on the other node', async () => {
    const p = await createTeamProject(a, 'nodes');
    expect((await postStore(b, p.id, p.public_key, exceptionEvent('Error', 'first'))).statusCode).toBe(200);
    expect((await a.api('PATCH', `/api/v1/projects/${p.id}`, { events_per_minute: 0 })).statusCode).toBe(200);
    expect(await untilStatus(p.id, p.public_key, 429)).toBeLessThan(1000);
    expect((await a.api('DELETE', `/api/v1/projects/${p.id}`)).statusCode).toBe(200);
    expect(await untilStatus(p.id, p.public_key, 404)).toBeLessThan(1000);
  });
});
