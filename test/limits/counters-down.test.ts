/**
 * A running node whose Redis goes away (a relay between them is cut): metered keys are refused with 503
 * counters_unavailable in the caller's style, unmetered keys keep working, the quota says the counters are
 * unavailable, and everything recovers when Redis comes back; counters Redis lost meanwhile are seeded again from
 * the usage records on the next call. Also: a node whose clock is years off still puts its calls in the month of
 * the shared (Redis) clock. All need REDIS_URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { loadConfig } from '../../core/config.ts';
import { RedisCounters } from '../../core/counters/redis-counters.ts';
import { randomHex } from '../../core/ids.ts';
import { createLimitStore } from '../../core/limits/create-limit-store.ts';
import { monthOf } from '../../core/limits/limit-store.ts';
import { createLogger } from '../../core/logger.ts';
import { buildServer, type Server } from '../../server/build-server.ts';
import { openContext } from '../../server/open-context.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { createTestDatabase, REAL_REDIS, type TestDatabase } from '../support/test-db.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';
import { CHAT_BODY, MESSAGES_BODY, startLimitsEnv, type LimitsEnv } from './limits-env.ts';
import { RedisRelay } from './redis-relay.ts';

if (!REAL_REDIS) console.warn('counters-down and clock-skew tests skipped: they need REDIS_URL');

describe.skipIf(!REAL_REDIS)('Redis goes away under a running node', () => {
  let relay: RedisRelay;
  let tdb: TestDatabase;
  let server: Server;
  let url: string;
  let chat: FakeUpstream;
  let counters: RedisCounters;
  let teamId: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-'));

  beforeAll(async () => {
    relay = new RedisRelay(REAL_REDIS as string);
    await relay.open();
    [tdb, chat] = await Promise.all([createTestDatabase(), startFake('chat', ['gpt-4o-mini'])]);
    const prefix = `t${randomHex(4)}:`;
    const config = loadConfig({ SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent', PORT: '0', SVC_DATA_DIR: dataDir, REDIS_URL: relay.url, SVC_REDIS_PREFIX: prefix, ...(tdb.url ? { DATABASE_URL: tdb.url } : {}) });
    counters = new RedisCounters(relay.url, prefix);
    await counters.ready();
    const ctx = await openContext(config, createLogger('silent'), { db: tdb.db, counters });
    server = await buildServer(ctx, 'all', { schedulerRetryMs: 200 });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
    const admin = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      server.app.inject({ method: method as 'POST', url: path, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers }, payload: body as object });
    const team = await admin('POST', '/api/v1/teams', { name: 'down' });
    expect(team.statusCode).toBe(201);
    teamId = team.json().id as string;
    expect((await admin('POST', '/api/v1/accounts', { name: 'c', provider: 'openai', api_key: 'sk-fake-0123456789abcdef', base_url: `${chat.url}/v1`, models: ['gpt-4o-mini', 'claude-sonnet-4-6'] })).statusCode).toBe(201);
  }, 60_000);

  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await relay?.open().catch(() => {});
    await server?.close();
    await chat?.close();
    await tdb?.drop();
  });

  const createKey = async (limits: Record<string, number>) => {
    const r = await server.app.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-svc-team': 'down' }, payload: { name: `k${randomHex(3)}`, limits } });
    return { id: r.json().id as string, secret: r.json().key as string };
  };
  const newKey = async (limits: Record<string, number>) => (await createKey(limits)).secret;
  const chatCall = (key: string) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(CHAT_BODY) });
  const messagesCall = (key: string) => fetch(`${url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify(MESSAGES_BODY) });

  it('fails closed for metered keys with a clear 503, keeps unmetered keys working, and recovers', async () => {
    const metered = await newKey({ dollars_per_month: 10, requests_per_minute: 100 });
    const free = await newKey({});
    expect((await chatCall(metered)).status).toBe(200);
    expect((await chatCall(free)).status).toBe(200);

    await relay.cut();
    const refused = await chatCall(metered);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await refused.json()).error).toMatchObject({ code: 'counters_unavailable' });
    // The messages style says "unavailable" its own way: 529 overloaded_error, which its SDKs retry.
    const inMessages = await messagesCall(metered);
    expect(inMessages.status).toBe(529);
    expect(await inMessages.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: expect.stringContaining('limit counters cannot be reached') } });
    expect((await chatCall(free)).status).toBe(200);
    const quota = await (await fetch(`${url}/api/v1/quota`, { headers: { authorization: `Bearer ${metered}` } })).json();
    expect(quota.counters).toBe('unavailable');
    expect(quota).toMatchObject({ requests: { last_minute: null, last_day: null }, remaining: { requests_per_minute: null } });

    await relay.open();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await chatCall(metered)).status;
    }
    expect(status).toBe(200);
  });

  it('counts what Redis lost from the usage records on the first call once it is back, not minutes later', async () => {
    const k = await createKey({ tokens_per_month: 1000 });
    for (let i = 0; i < 2; i++) expect((await chatCall(k.secret)).status).toBe(200);
    await expect.poll(async () => (await tdb.db.query('SELECT 1 FROM usage_records WHERE key_id = $1', [k.id])).rows.length, { timeout: 5000 }).toBe(2);
    const store = createLimitStore(counters, server.ctx.clock);
    const month = monthOf(Date.now());
    expect((await store.spend(k.id, teamId, month)).keyTokens).toBe(40);

    // Redis goes away and comes back without the key's counters (as a restart that lost its last writes would).
    await relay.cut();
    const direct = new Redis(REAL_REDIS as string);
    await direct.del(`${counters.prefix}lim:{${teamId}}:k:${k.id}:m:${month}`);
    direct.disconnect();
    await relay.open();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await chatCall(k.secret)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    // The 40 tokens of the records before, and this call's 20.
    await expect.poll(async () => (await store.spend(k.id, teamId, month)).keyTokens, { timeout: 5000 }).toBe(60);
  });
});

describe.skipIf(!REAL_REDIS)('a node clock far from the shared clock', () => {
  let env: LimitsEnv;
  beforeAll(async () => {
    env = await startLimitsEnv({ clock: new ManualClock(Date.UTC(2020, 2, 15, 12)) });
  });
  afterAll(async () => env?.close());

  it('counts calls in the month of the Redis clock, not of its own', async () => {
    const k = await env.key({ limits: { tokens_per_month: 1000 } });
    expect((await env.chatCall(k.secret)).status).toBe(200);
    await env.usage(k.id, 1);
    const store = createLimitStore(env.s.ctx.counters, env.s.ctx.clock);
    const month = monthOf(Date.now());
    let spent = 0;
    for (let i = 0; i < 50 && spent === 0; i++) {
      spent = (await store.spend(k.id, env.teamId, month)).keyTokens;
      if (spent === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(spent).toBe(20);
    expect((await store.spend(k.id, env.teamId, '2020-03')).keyTokens).toBe(0);
  });
});
