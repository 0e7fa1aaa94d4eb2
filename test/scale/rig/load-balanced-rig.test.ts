/**
 * The load-balanced rig (docs/deployment.md): HAProxy with deploy/haproxy.cfg in front of three `--role proxy`
 * nodes and one `--role control-plane` node, on the rig's own throwaway Postgres and Redis, under a bounded sustained
 * load of gateway calls (a fake upstream) and error events through the balancer. Faults: one proxy node killed with
 * SIGKILL and started again, Postgres restarted (clean and crash), Redis restarted, and a rolling upgrade (the proxy
 * nodes replaced one at a time by a newer version with an additive migration). Required: the balancer's
 * /healthz checks take the dead node out and put it back; no request goes unanswered past its deadline; at the
 * end every acknowledged event is stored and every answered call has its usage record (0 lost); a request limit is
 * exact across the three nodes; no node exits on its own and nothing answers 500. A node with another
 * SVC_SECRET_KEY refuses to join.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haproxyAvailable } from '../../deploy/support/start-haproxy.ts';
import { startSplitCluster, type SplitCluster } from '../../deploy/support/start-split-cluster.ts';
import type { FakeUpstream } from '../../fakes/fake-upstream.ts';
import { startFake } from '../../fakes/start-fake.ts';
import { nodeApi, nodeProject } from '../../support/node-api.ts';
import { spawnNode } from '../../support/spawn-node.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../../support/test-server.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../support/throwaway-postgres.ts';
import { startThrowawayRedis, type ThrowawayRedis } from '../../support/throwaway-redis.ts';
import { newerVersion, type NewerVersion } from './newer-version.ts';
import { startRigLoad, type RigLoad } from './rig-load.ts';

/** Every request of the load must be answered (or refused) within this. */
const DEADLINE_MS = 20_000;

describe.skipIf(!haproxyAvailable())('the load-balanced rig: three proxy nodes and a control plane behind HAProxy, under load and faults', () => {
  let pgs: ThrowawayPostgres;
  let redis: ThrowawayRedis;
  let chat: FakeUpstream;
  let cluster: SplitCluster;
  let load: RigLoad;
  let keyId: string;
  let project: { id: number; key: string };
  let newer: NewerVersion | undefined;
  let env: Record<string, string>;

  const servers = async () => (await cluster.lb.servers()).map((s) => `${s.server} ${s.status} ${s.lastCheck.split(' ')[0]}`);
  const proxy2 = async () => (await cluster.lb.servers()).find((s) => s.server === 'proxy2')!;

  beforeAll(async () => {
    [pgs, redis, chat] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis(), startFake('chat', ['gpt-4o-mini'])]);
    env = { DATABASE_URL: pgs.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: 'rig:', SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY };
    cluster = await startSplitCluster({ proxies: 3, env });
    project = await nodeProject(cluster.url, 'rig', 10_000_000);
    const k = await nodeApi(cluster.url, 'POST', '/api/v1/keys', { name: 'rig' }, 'rig');
    keyId = k.id as string;
    await nodeApi(cluster.url, 'POST', '/api/v1/accounts', { name: 'chat-fake', provider: 'openai', api_key: 'sk-fake-rig-0123456789abcdef', base_url: `${chat.url}/v1`, models: ['gpt-4o-mini'] });
    load = startRigLoad({ url: cluster.url, project, gatewayKey: k.key as string }, { senders: 6, callers: 3, deadlineMs: DEADLINE_MS });
    await load.progress(200, 20);
  }, 240_000);

  afterAll(async () => {
    await load?.stop();
    await cluster?.stop();
    await Promise.all([pgs?.cleanup(), redis?.cleanup(), chat?.close()]);
    newer?.cleanup();
  });

  it('the balancer sees three proxy nodes and the control plane up, and every proxy node serves', async () => {
    await expect.poll(servers, { timeout: 15_000, interval: 200 }).toEqual(['proxy1 UP L7OK', 'proxy2 UP L7OK', 'proxy3 UP L7OK', 'control1 UP L7OK']);
    for (const s of (await cluster.lb.servers()).filter((x) => x.backend === 'proxy')) expect(s.sessions).toBeGreaterThan(0);
  }, 30_000);

  it('a proxy node killed with SIGKILL is taken out by the health checks, and put back once started again', async () => {
    await cluster.proxies[1].stop('SIGKILL');
    await expect.poll(async () => (await proxy2()).status, { timeout: 15_000, interval: 100 }).toBe('DOWN');
    // The two other nodes carry the load meanwhile.
    await load.progress(150, 15);
    await cluster.restartProxy(1);
    await expect.poll(async () => (await proxy2()).status, { timeout: 15_000, interval: 100 }).toBe('UP');
    const before = (await proxy2()).sessions;
    await expect.poll(async () => (await proxy2()).sessions, { timeout: 30_000, interval: 200 }).toBeGreaterThan(before + 20);
    await load.progress(100, 10);
    expect(cluster.unexpectedExits).toEqual([]);
  }, 120_000);

  it('keeps serving across a Postgres restart, clean and then a crash', async () => {
    await pgs.restart('fast');
    await load.progress(200, 10);
    await pgs.restart('immediate');
    await load.progress(200, 10);
    expect(cluster.unexpectedExits).toEqual([]);
  }, 120_000);

  it('keeps serving across a Redis restart', async () => {
    await redis.restart();
    await load.progress(200, 10);
    expect(cluster.unexpectedExits).toEqual([]);
  }, 120_000);

  it('a rolling upgrade: the proxy nodes are replaced one at a time by a newer version, whose first node migrates forward', async () => {
    newer = newerVersion('ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS rig_note text;\nCREATE TABLE IF NOT EXISTS rig_upgrade_marks (id bigint PRIMARY KEY);\n');
    const applied = async () => {
      const db = new pg.Client({ connectionString: pgs.url });
      await db.connect();
      try {
        return (await db.query('SELECT 1 FROM schema_migrations WHERE name = $1', [newer!.migration])).rowCount;
      } finally {
        await db.end();
      }
    };
    for (let i = 0; i < 3; i++) {
      // A graceful stop (SIGTERM: the node drains), then the new version on the same port and data directory.
      await cluster.restartProxy(i, { signal: 'SIGTERM', main: newer.main });
      await expect.poll(async () => (await cluster.lb.servers())[i].status, { timeout: 15_000, interval: 100 }).toBe('UP');
      // The first new node applied the new migration; the old nodes still serving run against the newer schema.
      if (i === 0) expect(await applied()).toBe(1);
      await load.progress(100, 10);
    }
    for (const p of cluster.proxies) expect(((await (await fetch(`${p.url}/healthz`)).json()) as { version: string }).version).toBe(newer.version);
    // The control plane, still the old version, serves on the newer schema.
    expect(((await nodeApi(cluster.url, 'GET', '/api/v1/projects', undefined, 'rig')).items as unknown[]).length).toBeGreaterThan(0);
    expect(cluster.unexpectedExits).toEqual([]);
  }, 180_000);

  it('a node with another SVC_SECRET_KEY refuses to join, and says why', async () => {
    const joining = spawnNode('proxy', { ...env, SVC_SECRET_KEY: 'another-secret-key-0123456789abcdef0123', SVC_PUBLIC_URL: cluster.url });
    await expect(joining).rejects.toThrow(/SVC_SECRET_KEY differs from the key the other nodes of this database use/);
  }, 60_000);

  it('a request limit is exact across the three proxy nodes', async () => {
    const k = await nodeApi(cluster.url, 'POST', '/api/v1/keys', { name: 'rig-limited', limits: { requests_per_minute: 15 } }, 'rig');
    const t0 = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: 45 }, () =>
        fetch(`${cluster.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${k.key as string}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'limit' }] }),
          signal: AbortSignal.timeout(DEADLINE_MS),
        }).then(async (r) => (await r.arrayBuffer(), r.status)),
      ),
    );
    // The sliding minute has no boundary to cross as long as the burst ends well inside it.
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  }, 60_000);

  it('lost nothing acknowledged, left no request unanswered past its deadline, and never answered 500', async () => {
    await load.stop();
    const db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
    try {
      let [missing, records]: [string[], number] = [[], 0];
      const deadline = Date.now() + 90_000;
      for (;;) {
        const stored = new Set((await db.query<{ id: string }>('SELECT event_id AS id FROM events WHERE project_id = $1', [project.id])).rows.map((r) => r.id.replaceAll('-', '')));
        missing = [...load.acked].filter((id) => !stored.has(id));
        records = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records WHERE key_id = $1 AND status = 200', [keyId])).rows[0].n;
        if ((missing.length === 0 && records >= load.answered()) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      console.info(
        `rig: ${load.acked.size} events and ${load.answered()} calls acknowledged; ${records} usage records; slowest request ${Math.round(load.slowestMs())} ms; ` +
          `other outcomes ${JSON.stringify(Object.fromEntries(load.failures))}`,
      );
      expect(missing).toEqual([]);
      expect(records).toBeGreaterThanOrEqual(load.answered());
      expect(load.hangs()).toBe(0);
      expect([...load.failures.keys()].filter((k) => k.endsWith(' 500'))).toEqual([]);
      expect(cluster.unexpectedExits).toEqual([]);
    } finally {
      await db.end();
    }
  }, 120_000);
});
