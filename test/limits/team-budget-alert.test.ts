/**
 * The 80 % alert of a team's monthly token budget (`ai.tokens`): calls of several keys of the team that together
 * cross 80 % send exactly one `team.budget_alert` (notifications and a subscribed webhook), and later calls of the
 * month send no other; two nodes crossing the line at the same time still send one (needs DATABASE_URL and
 * REDIS_URL). The fake upstream answers each CHAT_BODY call with 13 input and 7 output tokens: 20 tokens a call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPATCH_JOB } from '../../control-plane/webhooks/dispatcher.ts';
import type { Server } from '../../server/build-server.ts';
import { startReceiver, type Receiver } from '../api/webhook-receiver.ts';
import { startSecondNode } from '../support/second-node.ts';
import { REAL_PG, REAL_REDIS } from '../support/test-db.ts';
import { CHAT_BODY, eventually, startLimitsEnv, type LimitsEnv } from './limits-env.ts';

let env: LimitsEnv;
beforeAll(async () => {
  // The webhook receiver runs on this machine: private targets must be allowed explicitly.
  env = await startLimitsEnv({ env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
});
afterAll(async () => env?.close());

interface TeamAlert {
  id: string;
  kind: string;
  data: { team: { id: string; name?: string }; month: string; limit: string; threshold: number; budget: number; spent: number; percent: number };
}

/** A team with `ai.tokens` set and two keys; returns its id and the keys' secrets and ids. */
async function teamWithBudget(name: string, tokens: number) {
  const team = await env.s.api('POST', '/api/v1/teams', { name });
  expect(team.statusCode, team.body).toBe(201);
  const lim = await env.s.api('PUT', `/api/v1/teams/${team.json().id}/limits`, { 'ai.tokens': tokens });
  expect(lim.statusCode, lim.body).toBe(200);
  const keys = [];
  for (const k of ['a', 'b']) {
    const res = await env.s.api('POST', '/api/v1/keys', { name: `${name}-${k}` }, { 'x-svc-team': name });
    expect(res.statusCode, res.body).toBe(201);
    keys.push({ id: res.json().id as string, secret: res.json().key as string });
  }
  return { id: team.json().id as string, keys };
}

const alerts = async (team: string): Promise<TeamAlert[]> => {
  const r = await env.s.api('GET', `/api/v1/notifications?kind=team.budget_alert&team=${team}`);
  expect(r.statusCode, r.body).toBe(200);
  return r.json().items;
};

/** Usage rows of the given keys once at least n are written, all keys together. */
async function teamUsage(keyIds: string[], n: number): Promise<number> {
  return eventually(async () => {
    const r = await env.s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records WHERE key_id = ANY($1)', [keyIds]);
    return r.rows[0].n >= n ? r.rows[0].n : undefined;
  });
}

describe('team budget alert', () => {
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(async () => rx?.close());

  it('notifies the team once per month when its keys together reach 80 % of ai.tokens', async () => {
    const t = await teamWithBudget('crew', 200);
    const hook = await env.s.api('POST', '/api/v1/webhooks', { url: `${rx.url}/team-budget`, events: ['team.budget_alert'] }, { 'x-svc-team': 'crew' });
    expect(hook.statusCode, hook.body).toBe(201);
    // 7 calls over both keys = 140 tokens, 70 %: no alert.
    for (let i = 0; i < 7; i++) expect((await env.chatCall(t.keys[i % 2].secret)).status).toBe(200);
    await teamUsage(t.keys.map((k) => k.id), 7);
    await new Promise((r) => setTimeout(r, 100));
    expect(await alerts('crew')).toHaveLength(0);
    // The 8th reaches 160 tokens, 80 %.
    expect((await env.chatCall(t.keys[1].secret)).status).toBe(200);
    const sent = await eventually(async () => ((await alerts('crew')).length > 0 ? alerts('crew') : undefined));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      kind: 'team.budget_alert',
      data: { team: { id: t.id, name: 'crew' }, limit: 'ai.tokens', threshold: 0.8, budget: 200, spent: 160, percent: 80 },
    });
    expect(sent[0].data.month).toMatch(/^\d{4}-\d\d$/);
    // No key alert: the keys have no budget of their own.
    const keyAlerts = (await env.s.api('GET', '/api/v1/notifications?kind=key.budget_alert&team=crew')).json().items;
    expect(keyAlerts).toHaveLength(0);

    // More calls in the same month (180 tokens, then a refusal past the budget): still one alert.
    expect((await env.chatCall(t.keys[0].secret)).status).toBe(200);
    const refused = await env.chatCall(t.keys[1].secret);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('team_ai_tokens');
    await teamUsage(t.keys.map((k) => k.id), 9);
    await new Promise((r) => setTimeout(r, 200));
    expect(await alerts('crew')).toHaveLength(1);
    const row = await env.s.db.query<{ limit_name: string; outbox_id: string }>('SELECT limit_name, outbox_id FROM team_budget_alerts WHERE team_id = $1', [t.id]);
    expect(row.rows).toEqual([{ limit_name: 'ai.tokens', outbox_id: expect.anything() }]);
    expect(`evt_${row.rows[0].outbox_id}`).toBe(sent[0].id);

    // The subscribed webhook gets the event once.
    await env.s.scheduler.runNow(DISPATCH_JOB);
    const delivered = await eventually(async () => (rx.requests.some((r) => r.path === '/team-budget') ? rx.requests.filter((r) => r.path === '/team-budget') : undefined));
    expect(delivered).toHaveLength(1);
    expect(JSON.parse(delivered[0].body)).toMatchObject({ kind: 'team.budget_alert', data: sent[0].data });
  });

  it('sends nothing for a team without ai.tokens', async () => {
    const team = await env.s.api('POST', '/api/v1/teams', { name: 'open' });
    expect(team.statusCode).toBe(201);
    const k = await env.s.api('POST', '/api/v1/keys', { name: 'open-a', limits: { tokens_per_month: 1000 } }, { 'x-svc-team': 'open' });
    for (let i = 0; i < 3; i++) expect((await env.chatCall(k.json().key)).status).toBe(200);
    await teamUsage([k.json().id], 3);
    await new Promise((r) => setTimeout(r, 100));
    expect(await alerts('open')).toHaveLength(0);
  });
});

const multi = Boolean(REAL_PG && REAL_REDIS);
if (!multi) console.warn('two-node team budget alert test skipped: it needs DATABASE_URL and REDIS_URL');

describe.skipIf(!multi)('team budget alert across two nodes', () => {
  let b: Server;
  let bUrl: string;
  beforeAll(async () => {
    b = await startSecondNode(env.s);
    bUrl = await b.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => b?.close());

  const callOn = (url: string, secret: string) =>
    fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(CHAT_BODY) });

  it('sends one alert when both nodes cross 80 % at the same time', async () => {
    const t = await teamWithBudget('pair', 1000);
    const nodes = [env.s.url as string, bUrl];
    // 38 calls over both nodes and keys = 760 tokens, 76 %.
    for (let i = 0; i < 19; i++) {
      const res = await Promise.all([callOn(nodes[0], t.keys[0].secret), callOn(nodes[1], t.keys[1].secret)]);
      expect(res.map((r) => r.status)).toEqual([200, 200]);
    }
    await teamUsage(t.keys.map((k) => k.id), 38);
    expect(await alerts('pair')).toHaveLength(0);
    // 6 concurrent calls, 3 on each node: both nodes settle calls above 800 tokens and both try to alert.
    const burst = await Promise.all(Array.from({ length: 6 }, (_, i) => callOn(nodes[i % 2], t.keys[i % 2].secret)));
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // One more call on each node (920 tokens): a node that had not alerted yet tries now and finds the row.
    for (const url of nodes) expect((await callOn(url, t.keys[0].secret)).status).toBe(200);
    await teamUsage(t.keys.map((k) => k.id), 46);
    const sent = await eventually(async () => ((await alerts('pair')).length > 0 ? alerts('pair') : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(await alerts('pair')).toHaveLength(1);
    expect(sent[0].data).toMatchObject({ team: { id: t.id, name: 'pair' }, limit: 'ai.tokens', budget: 1000, threshold: 0.8 });
    expect(sent[0].data.spent).toBeGreaterThanOrEqual(800);
    expect(sent[0].data.percent).toBeGreaterThanOrEqual(80);
  });
});
