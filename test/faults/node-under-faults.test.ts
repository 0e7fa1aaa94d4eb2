/**
 * The fault suite (issue 11, docs/operations.md): a real node process on its own throwaway Postgres and Redis, under
 * a bounded ingest load (24 concurrent senders of raw envelopes) and gateway calls (4 OpenAI SDK clients against a
 * fake upstream), goes through the faults production brings: its database sessions terminated, Postgres restarted,
 * Postgres stopped for a while, Redis restarted, the sessions of a --role proxy node terminated under calls, and the
 * node itself killed with SIGKILL and started again on the same data directory. The process never exits except for the kill, health answers as documented, and at the end
 * every event id answered 200 is stored and every answered call has its usage record: 0 missing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { nodeApi, nodeProject } from '../support/node-api.ts';
import { spawnNode, type NodeProcess } from '../support/spawn-node.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.ts';
import { startThrowawayRedis, type ThrowawayRedis } from '../support/throwaway-redis.ts';
import { startFaultLoad, type FaultLoad } from './support/fault-load.ts';

describe('a node under load through every infrastructure fault', () => {
  let pgs: ThrowawayPostgres;
  let redis: ThrowawayRedis;
  let chat: FakeUpstream;
  let dataDir: string;
  let env: Record<string, string>;
  let node: NodeProcess;
  let load: FaultLoad;
  let keyId: string;
  let gatewayKey: string;
  /** Calls answered by other nodes than the main one, whose usage records are counted too. */
  let otherAnswered = 0;
  let project: { id: number; key: string };
  /** Exits of a node that the suite did not cause. */
  const unexpectedExits: string[] = [];

  const start = async () => {
    const n = await spawnNode('all', env);
    n.proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL' && signal !== 'SIGTERM') unexpectedExits.push(`exit ${code} ${signal}:\n${n.output().slice(-4000)}`);
    });
    node = n;
    return n;
  };
  const health = async (path: string) => {
    const res = await fetch(node.url + path, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    return res ? { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> } : { status: 0, retryAfter: null, body: {} };
  };
  const appName = () => `svc-${node.proc.pid}`;

  beforeAll(async () => {
    [pgs, redis, chat] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis(), startFake('chat', ['gpt-4o-mini'])]);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-faults-'));
    env = { DATABASE_URL: pgs.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: 'faults:', SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY, SVC_DATA_DIR: dataDir };
    await start();
    project = await nodeProject(node.url, 'faults', 10_000_000);
    const k = await nodeApi(node.url, 'POST', '/api/v1/keys', { name: 'faults' }, 'faults');
    keyId = k.id as string;
    gatewayKey = k.key as string;
    await nodeApi(node.url, 'POST', '/api/v1/accounts', { name: 'chat-fake', provider: 'openai', api_key: 'sk-fake-faults-0123456789abcdef', base_url: `${chat.url}/v1`, models: ['gpt-4o-mini'] });
    load = startFaultLoad({ url: () => node.url, project, gatewayKey }, { senders: 24, callers: 4 });
    await load.progress(200, 10);
  }, 120_000);

  afterAll(async () => {
    await load?.stop();
    await node?.stop('SIGKILL').catch(() => {});
    await Promise.all([pgs?.cleanup(), redis?.cleanup(), chat?.close()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps serving when its database sessions are terminated', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await pgs.terminateBackends(appName())).toBeGreaterThan(0);
      await load.progress(100, 5);
    }
    expect(unexpectedExits).toEqual([]);
  }, 90_000);

  it('keeps serving across a Postgres restart', async () => {
    await pgs.restart('fast');
    await load.progress(200, 10);
    await pgs.restart('immediate');
    await load.progress(200, 10);
    expect(unexpectedExits).toEqual([]);
  }, 90_000);

  it('while Postgres is down: /healthz stays 200 (events are journaled), /api/v1/health answers 503 with Retry-After; both recover', async () => {
    await pgs.stop('immediate');
    try {
      await expect.poll(async () => (await health('/api/v1/health')).status, { timeout: 15_000, interval: 200 }).toBe(503);
      const h = await health('/api/v1/health');
      expect(h.retryAfter).toMatch(/^\d+$/);
      expect((h.body.error as { details: { checks: Record<string, { status: string }> } }).details.checks.database.status).toBe('down');
      // Events keep being acknowledged (journaled) while the database is down, and the node says it keeps requests.
      await load.progress(100, 0, 30_000);
      // An API request that needs the database says it is unavailable, and when to come back (not a 500).
      const listed = await fetch(`${node.url}/api/v1/projects`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-svc-team': 'faults' } });
      expect(listed.status).toBe(503);
      expect(listed.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await listed.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
      const z = await health('/healthz');
      expect(z.status).toBe(200);
      // The writer's view is the last batch's outcome: a replay committed just before the stop can show the database
      // as up until the next batch fails, so this is polled.
      await expect.poll(async () => (await health('/healthz')).body.checks, { timeout: 15_000, interval: 100 })
        .toMatchObject({ events_journal: { ok: true, database_down: true } });
    } finally {
      await pgs.start();
    }
    await expect.poll(async () => (await health('/api/v1/health')).status, { timeout: 30_000, interval: 200 }).toBe(200);
    expect((await health('/healthz')).status).toBe(200);
    await load.progress(100, 5);
    expect(unexpectedExits).toEqual([]);
  }, 120_000);

  it('keeps serving across a Redis restart', async () => {
    await redis.restart();
    await expect.poll(async () => (await health('/api/v1/health')).status, { timeout: 30_000, interval: 200 }).toBe(200);
    await load.progress(200, 10);
    expect(unexpectedExits).toEqual([]);
  }, 90_000);

  it('a --role proxy node keeps serving gateway calls when its sessions are terminated', async () => {
    const proxyDir = mkdtempSync(join(tmpdir(), 'svc-faults-proxy-'));
    const proxy = await spawnNode('proxy', { ...env, SVC_DATA_DIR: proxyDir });
    let exited: string | undefined;
    proxy.proc.on('exit', (code, signal) => (exited ??= `exit ${code} ${signal}:\n${proxy.output().slice(-4000)}`));
    const calls = startFaultLoad({ url: () => proxy.url, project, gatewayKey }, { senders: 0, callers: 4 });
    try {
      await calls.progress(0, 10);
      for (let i = 0; i < 2; i++) {
        expect(await pgs.terminateBackends(`svc-${proxy.proc.pid}`)).toBeGreaterThan(0);
        await calls.progress(0, 10);
      }
      expect(exited).toBeUndefined();
    } finally {
      await calls.stop();
      otherAnswered += calls.answered();
      expect(await proxy.stop()).toBe(0);
      rmSync(proxyDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('loses nothing acknowledged when killed with SIGKILL and started again on the same data directory', async () => {
    await load.progress(100, 5);
    await node.stop('SIGKILL');
    await start();
    await load.progress(200, 10);
    expect(unexpectedExits).toEqual([]);
  }, 120_000);

  it('has stored every acknowledged event and every answered call', async () => {
    await load.stop();
    const db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
    try {
      const acked = load.acked;
      let missing: string[] = [];
      let records = 0;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const stored = new Set((await db.query<{ id: string }>('SELECT event_id AS id FROM events WHERE project_id = $1', [project.id])).rows.map((r) => r.id.replaceAll('-', '')));
        missing = [...acked].filter((id) => !stored.has(id));
        records = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records WHERE key_id = $1 AND status = 200', [keyId])).rows[0].n;
        if ((missing.length === 0 && records >= load.answered() + otherAnswered) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      console.info(`fault suite: ${acked.size} events and ${load.answered() + otherAnswered} calls acknowledged; ${records} usage records; refusals ${JSON.stringify(Object.fromEntries(load.failures))}`);
      expect(missing).toEqual([]);
      expect(records).toBeGreaterThanOrEqual(load.answered() + otherAnswered);
      // Refusals during the faults are 503s (or no answer while the node was killed), never a 500.
      expect([...load.failures.keys()].filter((k) => k.endsWith(' 500'))).toEqual([]);
      expect(unexpectedExits).toEqual([]);
    } finally {
      await db.end();
    }
  }, 90_000);
});
