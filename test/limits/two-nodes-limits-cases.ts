/**
 * Limits are exact across nodes: two server processes (one `all`, one `proxy`) on one Postgres and one Redis (one
 * server or a cluster), a fake upstream, and concurrent calls spread over both nodes. Exactly the requests-per-minute
 * limit gets through (the sliding window has no boundary to cross, and the test asserts it ends well within the
 * minute), and a token budget is never passed however the calls interleave. Run by two-nodes-limits.test.ts (one
 * Redis) and test/scale/redis-cluster.test.ts (a Redis Cluster); needs DATABASE_URL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomHex } from '../../core/ids.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { spawnNode, type NodeProcess } from '../support/spawn-node.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';

export function twoNodeLimitsCases(redisUrl: () => string): void {
  let tdb: TestDatabase;
  let a: NodeProcess;
  let b: NodeProcess;
  let chat: FakeUpstream;

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(a.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const makeKey = async (limits: Record<string, number>) => {
    const r = await api('POST', '/api/v1/keys', { name: `k${randomHex(3)}`, limits }, { 'x-svc-team': 'nodes' });
    expect(r.status).toBe(201);
    return { id: r.body.id as string, secret: r.body.key as string };
  };
  const call = (node: NodeProcess, secret: string) =>
    fetch(`${node.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    }).then(async (r) => ({ status: r.status, body: await r.text() }));

  beforeAll(async () => {
    chat = await startFake('chat', ['gpt-4o-mini']);
    tdb = await createTestDatabase();
    const env = { DATABASE_URL: tdb.url as string, REDIS_URL: redisUrl(), SVC_REDIS_PREFIX: `t${randomHex(4)}:`, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY };
    a = await spawnNode('all', env);
    b = await spawnNode('proxy', env);
    expect((await api('POST', '/api/v1/teams', { name: 'nodes' })).status).toBe(201);
    expect((await api('POST', '/api/v1/accounts', { name: 'openai-fake', provider: 'openai', api_key: 'sk-fake-0123456789abcdef', base_url: `${chat.url}/v1`, models: ['gpt-4o-mini'] })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await chat?.close();
    await tdb?.db.close();
    await tdb?.drop();
  });

  it('lets exactly requests_per_minute through across both nodes', async () => {
    const k = await makeKey({ requests_per_minute: 10 });
    const t0 = Date.now();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2 ? a : b, k.secret)));
    expect(Date.now() - t0).toBeLessThan(30_000);
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(10);
    expect(limited).toHaveLength(30);
    expect(JSON.parse(limited[0].body).error.code).toBe('key_requests_per_minute');
    // Only the admitted calls reached the upstream.
    expect(chat.calls.length).toBe(10);
  });

  it('never lets a token budget be passed, however calls interleave on the two nodes', async () => {
    const k = await makeKey({ tokens_per_month: 400 });
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => call(i % 2 ? a : b, k.secret)));
    const ok = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.status === 403);
    expect(ok + refused.length).toBe(60);
    expect(JSON.parse(refused[0].body).error.code).toBe('key_tokens_per_month');
    // Each call uses 20 tokens and reserves about 35: at least 400 / 35 calls fit, and never more than 400 / 20.
    expect(ok).toBeGreaterThanOrEqual(11);
    expect(ok).toBeLessThanOrEqual(20);
    let spent = 0;
    for (let i = 0; i < 100 && spent < ok * 20; i++) {
      const r = await tdb.db.query<{ n: number }>('SELECT coalesce(sum(input_tokens + output_tokens), 0)::int AS n FROM usage_records WHERE key_id = $1', [k.id]);
      spent = r.rows[0].n;
      if (spent < ok * 20) await new Promise((res) => setTimeout(res, 50));
    }
    expect(spent).toBe(ok * 20);
    expect(spent).toBeLessThanOrEqual(400);
    const q = await (await fetch(`${a.url}/api/v1/quota`, { headers: { authorization: `Bearer ${k.secret}` } })).json();
    expect(q.spent.tokens).toBe(spent);
    expect(q.in_flight.tokens).toBe(0);
  });
}
