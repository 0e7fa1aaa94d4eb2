/**
 * The deployment of docs/deployment.md, run: HAProxy with deploy/haproxy.cfg in front of two `--role proxy` nodes
 * and one `--role control-plane` node on real Postgres and Redis. Through the balancer's one address: the REST API
 * (teams, projects, keys, accounts), gateway calls with the official OpenAI SDK against a fake upstream, error events
 * sent to the DSN the API handed out, and the reporting script. The balancer's health checks see every node UP, and
 * both proxy nodes serve. A control-plane node without SVC_PUBLIC_URL refuses to start.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '../../core/ids.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { eventEnvelope, randomEventId, sentryAuth, waitFor } from '../ingest/support/ingest-helpers.ts';
import { nodeApi } from '../support/node-api.ts';
import { spawnNode } from '../support/spawn-node.ts';
import { createTestDatabase, REAL_PG, REAL_REDIS, type TestDatabase } from '../support/test-db.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';
import { haproxyAvailable } from './support/start-haproxy.ts';
import { startSplitCluster, type SplitCluster } from './support/start-split-cluster.ts';

const ready = Boolean(REAL_PG && REAL_REDIS) && haproxyAvailable();
if (!ready) console.warn('load-balanced deployment test skipped: it needs DATABASE_URL, REDIS_URL and haproxy on PATH');

describe.skipIf(!ready)('two proxy nodes and a control plane behind HAProxy', () => {
  let tdb: TestDatabase;
  let chat: FakeUpstream;
  let cluster: SplitCluster;
  let env: Record<string, string>;
  let project: { id: number; dsn: string };
  let gatewayKey: string;
  let keyId: string;

  beforeAll(async () => {
    [chat, tdb] = await Promise.all([startFake('chat', ['gpt-4o-mini']), createTestDatabase()]);
    env = { DATABASE_URL: tdb.url as string, REDIS_URL: REAL_REDIS as string, SVC_REDIS_PREFIX: `t${randomHex(4)}:`, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY };
    cluster = await startSplitCluster({ proxies: 2, env });
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await chat?.close();
    await tdb?.db.close();
    await tdb?.drop();
  });

  it('serves the REST API from the control plane, and hands out DSNs that name the balancer', async () => {
    const meta = await nodeApi(cluster.url, 'GET', '/api/v1/meta');
    expect(meta.roles).toEqual(['control-plane']);
    expect(meta.public_url).toBe(cluster.url);
    await nodeApi(cluster.url, 'POST', '/api/v1/teams', { name: 'lb' });
    const p = await nodeApi(cluster.url, 'POST', '/api/v1/projects', { name: 'lb' }, 'lb');
    project = { id: p.id as number, dsn: p.dsn as string };
    expect(new URL(project.dsn).host).toBe(new URL(cluster.url).host);
    const k = await nodeApi(cluster.url, 'POST', '/api/v1/keys', { name: 'lb' }, 'lb');
    [gatewayKey, keyId] = [k.key as string, k.id as string];
    await nodeApi(cluster.url, 'POST', '/api/v1/accounts', { name: 'chat-fake', provider: 'openai', api_key: 'sk-fake-lb-0123456789abcdef', base_url: `${chat.url}/v1`, models: ['gpt-4o-mini'] });
  });

  it('serves gateway calls from both proxy nodes, with nothing sticky', async () => {
    const client = new OpenAI({ apiKey: gatewayKey, baseURL: `${cluster.url}/v1`, maxRetries: 0 });
    // Four at a time, so that leastconn has more than one open request to balance.
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(Array.from({ length: 4 }, () => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })));
      for (const a of answers) expect(a.choices[0].message.content).toBeTruthy();
    }
    const proxies = (await cluster.lb.servers()).filter((s) => s.backend === 'proxy');
    expect(proxies.map((s) => s.server)).toEqual(['proxy1', 'proxy2']);
    for (const s of proxies) expect(s.sessions).toBeGreaterThan(0);
    // Every call's usage record, written by whichever proxy node served it.
    await waitFor(async () => {
      const r = await tdb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records WHERE key_id = $1 AND status = 200', [keyId]);
      return r.rows[0].n === 20;
    }, 20_000);
  });

  it('accepts error events at the DSN the API gave, and serves the reporting script naming the balancer', async () => {
    const dsn = new URL(project.dsn);
    const ids = Array.from({ length: 10 }, randomEventId);
    for (const [i, id] of ids.entries()) {
      // SDKs send the final slash; the service (and so the balancer) takes the path without it too.
      const res = await fetch(`${dsn.protocol}//${dsn.host}/api/${project.id}/envelope${i % 2 ? '' : '/'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-sentry-envelope', ...sentryAuth(decodeURIComponent(dsn.username)) },
        body: new Uint8Array(eventEnvelope({ event_id: id, message: `through the balancer ${id.slice(0, 6)}`, level: 'error' }, { event_id: id })),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    await waitFor(async () => {
      const r = await tdb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [project.id]);
      return r.rows[0].n === ids.length;
    }, 20_000);
    const script = await fetch(`${cluster.url}/js/${decodeURIComponent(dsn.username)}.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain(`${cluster.url}/api/${project.id}/store/`);
  });

  it('probes every node with /healthz: all UP; /metrics is refused at the balancer', async () => {
    const states = async () => (await cluster.lb.servers()).map((s) => `${s.backend}/${s.server} ${s.status} ${s.lastCheck.split(' ')[0]}`);
    await expect.poll(states, { timeout: 15_000, interval: 200 }).toEqual(['proxy/proxy1 UP L7OK', 'proxy/proxy2 UP L7OK', 'control_plane/control1 UP L7OK']);
    // Metrics are scraped per node, never through the balancer.
    expect((await fetch(`${cluster.url}/metrics`)).status).toBe(403);
    expect(cluster.unexpectedExits).toEqual([]);
  });

  it('a control-plane node without SVC_PUBLIC_URL refuses to start and says why', async () => {
    const started = spawnNode('control-plane', env);
    await expect(started).rejects.toThrow(/SVC_PUBLIC_URL is required with --role control-plane/);
  });
});
