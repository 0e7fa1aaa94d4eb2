import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { emitEvent, type EventKind } from '../../core/outbox.ts';
import { DISPATCH_JOB, WebhookDispatcher } from '../../control-plane/webhooks/dispatcher.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../control-plane/webhooks/retry-schedule.ts';
import { verifySignature } from '../../control-plane/webhooks/webhook-signature.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { expectErrorCode, makeTeam, makeUser } from './access-fixtures.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

const clock = new ManualClock();
let s: TestServer;
let rx: Receiver;
let team: string;

beforeAll(async () => {
  // The receiver runs on this machine, so private targets are allowed explicitly.
  s = await startTestServer({ clock, env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
  // Passes run only when a test asks (runNow), so each step below is deterministic.
  await s.scheduler.stop();
  rx = await startReceiver();
  team = await makeTeam(s, 'hooks');
});
afterAll(async () => {
  await s?.close();
  await rx?.close();
});

const H = { 'x-svc-team': 'hooks' };
const dispatch = () => s.scheduler.runNow(DISPATCH_JOB);

async function createHook(path: string, events: string[] = ['*'], headers = H): Promise<{ id: string; secret: string }> {
  const res = await s.api('POST', '/api/v1/webhooks', { url: `${rx.url}${path}`, events }, headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const deliveries = async (hook: string) => (await s.api('GET', `/api/v1/webhooks/${hook}/deliveries`)).json().items;
const emit = (kind: EventKind, data: Record<string, unknown>, teamId = team) => s.db.tx((q) => emitEvent(q, teamId, kind, data));
const requestsTo = (path: string) => rx.requests.filter((r) => r.path === path);

describe('webhooks API', () => {
  it('creates (secret once), lists, shows and deletes a team webhook', async () => {
    const res = await s.api('POST', '/api/v1/webhooks', { url: `${rx.url}/crud`, events: ['issue.new', 'issue.new', 'issue.spike'] }, H);
    expect(res.statusCode, res.body).toBe(201);
    const hook = res.json();
    expect(hook).toMatchObject({ team, url: `${rx.url}/crud`, events: ['issue.new', 'issue.spike'] });
    expect(hook.id).toMatch(/^wh_[0-9a-f]{16}$/);
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.created_at).toBe(new Date(clock.now()).toISOString());

    const list = await s.api('GET', '/api/v1/webhooks?team=hooks');
    expect(list.statusCode).toBe(200);
    expect(list.json().items.map((w: { id: string }) => w.id)).toContain(hook.id);
    const shown = await s.api('GET', `/api/v1/webhooks/${hook.id}`);
    expect(shown.json()).toEqual({ id: hook.id, team, url: hook.url, events: hook.events, created_by: null, created_at: hook.created_at });
    expect(JSON.stringify(list.json())).not.toContain(hook.secret);
    const row = await s.db.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhooks WHERE id = $1', [hook.id]);
    expect(row.rows[0].secret_sealed).not.toContain(hook.secret.slice(6));

    expect((await s.api('DELETE', `/api/v1/webhooks/${hook.id}`)).statusCode).toBe(200);
    expectErrorCode(await s.api('GET', `/api/v1/webhooks/${hook.id}`), 404, 'not_found');
    expectErrorCode(await s.api('DELETE', `/api/v1/webhooks/${hook.id}`), 404, 'not_found');
  });

  it('refuses bad URLs, unknown kinds, unknown fields and a missing team', async () => {
    for (const url of ['not a url', 'ftp://example.com/x', '/relative/path', 'http://user:pw@example.com/x']) {
      expectErrorCode(await s.api('POST', '/api/v1/webhooks', { url }, H), 400, 'invalid_webhook_url');
    }
    expectErrorCode(await s.api('POST', '/api/v1/webhooks', { url: 'https://example.com/x', events: ['issue.nope'] }, H), 400, 'validation_failed');
    expectErrorCode(await s.api('POST', '/api/v1/webhooks', { url: 'https://example.com/x', events: [] }, H), 400, 'validation_failed');
    expectErrorCode(await s.api('POST', '/api/v1/webhooks', { url: 'https://example.com/x', colour: 'red' }, H), 400, 'validation_failed');
    expectErrorCode(await s.api('POST', '/api/v1/webhooks', { url: 'https://example.com/x' }), 400, 'team_required');
    expectErrorCode(await s.api('POST', '/api/v1/webhooks', { url: 'https://example.com/x' }, { 'x-svc-team': 'no-such-team' }), 404, 'not_found');
  });

  it('lets team admins manage webhooks and team readers only read them', async () => {
    const other = await makeTeam(s, 'hooks-other');
    const admin = await makeUser(s, 'hook-admin', { [team]: 'admin' });
    const member = await makeUser(s, 'hook-member', { [team]: 'member' });
    const outsider = await makeUser(s, 'hook-outsider', { [other]: 'owner' });
    const created = await s.api('POST', '/api/v1/webhooks', { url: 'https://example.com/admin' }, { ...H, ...admin.headers });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    expect(created.json().created_by).toBe(admin.id);
    expectErrorCode(await s.api('POST', '/api/v1/webhooks', { url: 'https://example.com/m' }, { ...H, ...member.headers }), 403, 'forbidden');
    expect((await s.api('GET', `/api/v1/webhooks/${id}`, undefined, member.headers)).statusCode).toBe(200);
    expectErrorCode(await s.api('DELETE', `/api/v1/webhooks/${id}`, undefined, member.headers), 403, 'forbidden');
    expectErrorCode(await s.api('GET', `/api/v1/webhooks/${id}`, undefined, outsider.headers), 404, 'not_found');
    expect((await s.api('GET', '/api/v1/webhooks', undefined, outsider.headers)).json().items).toEqual([]);
    expect((await s.api('DELETE', `/api/v1/webhooks/${id}`, undefined, admin.headers)).statusCode).toBe(200);
  });
});

describe('webhook delivery', () => {
  it('delivers a signed test event to a local receiver', async () => {
    const hook = await createHook('/signed', ['issue.new']);
    const test = await s.api('POST', `/api/v1/webhooks/${hook.id}/test`);
    expect(test.statusCode, test.body).toBe(202);
    expect(test.json()).toMatchObject({ kind: 'webhook.test', webhook: hook.id });
    await dispatch();

    const [req] = requestsTo('/signed');
    expect(req.headers['content-type']).toBe('application/json');
    const body = JSON.parse(req.body);
    expect(body).toEqual({
      id: req.headers['x-svc-delivery'],
      event: test.json().event,
      kind: 'webhook.test',
      team,
      created_at: expect.stringMatching(/Z$/),
      data: { webhook_id: hook.id, url: `${rx.url}/signed`, message: expect.any(String) },
    });
    expect(req.headers['x-svc-event']).toBe('webhook.test');
    const sig = String(req.headers['x-svc-signature']);
    expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const now = Math.floor(clock.now() / 1000);
    expect(verifySignature(hook.secret, sig, req.body, now)).toBe(true);
    expect(verifySignature(hook.secret, sig, req.body.replace('webhook.test', 'webhook.tesT'), now)).toBe(false);
    expect(verifySignature('whsec_wrong', sig, req.body, now)).toBe(false);
    expect(verifySignature(hook.secret, sig, req.body, now + 3600)).toBe(false);

    const [d] = await deliveries(hook.id);
    expect(d).toMatchObject({ id: body.id, state: 'delivered', kind: 'webhook.test', attempt_count: 1, next_attempt_at: null, delivered_at: new Date(clock.now()).toISOString() });
    expect(d.attempts).toEqual([{ attempt: 1, status: 200, error: null, duration_ms: expect.any(Number), attempted_at: expect.any(String) }]);
  });

  it('sends each event to the webhooks of its team that subscribed to its kind', async () => {
    const other = await makeTeam(s, 'hooks-fanout');
    const issues = await createHook('/fan-issues', ['issue.new', 'issue.regressed']);
    const budget = await createHook('/fan-budget', ['key.budget_alert']);
    const all = await createHook('/fan-all', ['*']);
    await emit('issue.new', { issue: 'i1' });
    await emit('issue.new', { issue: 'elsewhere' }, other);
    await dispatch();
    expect(requestsTo('/fan-issues').map((r) => JSON.parse(r.body).data)).toEqual([{ issue: 'i1' }]);
    expect(requestsTo('/fan-all').map((r) => JSON.parse(r.body).data)).toEqual([{ issue: 'i1' }]);
    expect(requestsTo('/fan-budget')).toEqual([]);
    // A test event goes only to the webhook tested, whatever the others subscribed to.
    await s.api('POST', `/api/v1/webhooks/${budget.id}/test`);
    await dispatch();
    expect(requestsTo('/fan-budget')).toHaveLength(1);
    expect(requestsTo('/fan-all')).toHaveLength(1);
    for (const h of [issues, budget, all]) await s.api('DELETE', `/api/v1/webhooks/${h.id}`);
  });

  it('retries after a 500 with backoff and records every attempt', async () => {
    const hook = await createHook('/retry');
    rx.script.push(500);
    await s.api('POST', `/api/v1/webhooks/${hook.id}/test`);
    await dispatch();
    let [d] = await deliveries(hook.id);
    expect(d).toMatchObject({ state: 'pending', attempt_count: 1 });
    expect(d.attempts[0]).toMatchObject({ attempt: 1, status: 500, error: expect.stringContaining('500') });
    const wait = Date.parse(d.next_attempt_at) - clock.now();
    expect(wait).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0] * 0.8);
    expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_MS[0] * 1.2);

    await dispatch(); // not due yet
    expect(requestsTo('/retry')).toHaveLength(1);
    clock.advance(wait + 1);
    await dispatch();
    [d] = await deliveries(hook.id);
    expect(d).toMatchObject({ state: 'delivered', attempt_count: 2 });
    expect(d.attempts.map((a: { attempt: number; status: number }) => [a.attempt, a.status])).toEqual([[1, 500], [2, 200]]);
    const reqs = requestsTo('/retry');
    expect(reqs.map((r) => r.headers['x-svc-attempt'])).toEqual(['1', '2']);
    expect(reqs[0].headers['x-svc-delivery']).toBe(reqs[1].headers['x-svc-delivery']);
  });

  it('gives up after the last attempt and marks the delivery failed', async () => {
    const hook = await createHook('/always-500');
    rx.script.push(...Array(MAX_ATTEMPTS).fill(503));
    await s.api('POST', `/api/v1/webhooks/${hook.id}/test`);
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await dispatch();
      clock.advance(RETRY_DELAYS_MS[Math.min(i, RETRY_DELAYS_MS.length - 1)] * 1.25);
    }
    await dispatch();
    const [d] = await deliveries(hook.id);
    expect(d).toMatchObject({ state: 'failed', attempt_count: MAX_ATTEMPTS, next_attempt_at: null });
    expect(d.attempts).toHaveLength(MAX_ATTEMPTS);
    expect(d.attempts.every((a: { status: number }) => a.status === 503)).toBe(true);
    expect(requestsTo('/always-500')).toHaveLength(MAX_ATTEMPTS);
    const failed = await s.api('GET', `/api/v1/webhooks/${hook.id}/deliveries?state=failed`);
    expect(failed.json().items).toHaveLength(1);
    expect((await s.api('GET', `/api/v1/webhooks/${hook.id}/deliveries?state=delivered`)).json().items).toEqual([]);
  });

  it('records network errors, and delivers each event once under concurrent passes', async () => {
    const dead = await s.api('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:1/closed' }, H);
    await s.api('POST', `/api/v1/webhooks/${dead.json().id}/test`);
    const hook = await createHook('/concurrent', ['issue.spike']);
    for (let i = 0; i < 5; i++) await emit('issue.spike', { n: i });
    const second = new WebhookDispatcher(s.ctx);
    try {
      await Promise.all([dispatch(), dispatch(), second.runOnce(), second.runOnce()]);
    } finally {
      await second.stop();
    }
    expect(requestsTo('/concurrent').map((r) => JSON.parse(r.body).data.n).sort()).toEqual([0, 1, 2, 3, 4]);
    const items = await deliveries(hook.id);
    expect(items.map((d: { attempt_count: number }) => d.attempt_count)).toEqual([1, 1, 1, 1, 1]);
    const [d] = await deliveries(dead.json().id);
    expect(d.attempts[0]).toMatchObject({ status: null, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const hook = await createHook('/hang');
    rx.script.push(0);
    await s.api('POST', `/api/v1/webhooks/${hook.id}/test`);
    const quick = new WebhookDispatcher(s.ctx, { timeoutMs: 300 });
    try {
      await quick.runOnce();
    } finally {
      await quick.stop();
    }
    const [d] = await deliveries(hook.id);
    expect(d).toMatchObject({ state: 'pending', attempt_count: 1 });
    expect(d.attempts[0]).toMatchObject({ status: null, error: expect.stringContaining('did not answer') });
  });
});

describe('notifications', () => {
  it('lists what the teams you can read were told, with delivery summaries', async () => {
    const quiet = await makeTeam(s, 'quiet-team');
    const viewer = await makeUser(s, 'quiet-viewer', { [quiet]: 'viewer' });
    await emit('key.budget_alert', { key: 'k1', percent: 80 }, quiet);
    await emit('issue.regressed', { issue: 'i9' }, quiet);
    const seen = await s.api('GET', '/api/v1/notifications', undefined, viewer.headers);
    expect(seen.statusCode, seen.body).toBe(200);
    expect(seen.json().items.map((n: { kind: string }) => n.kind)).toEqual(['issue.regressed', 'key.budget_alert']);
    expect(seen.json().items[1]).toEqual({
      id: expect.stringMatching(/^evt_\d+$/),
      team: quiet,
      kind: 'key.budget_alert',
      data: { key: 'k1', percent: 80 },
      created_at: expect.any(String),
      dispatched_at: null,
      deliveries: { total: 0, pending: 0, delivered: 0, failed: 0 },
    });
    expectErrorCode(await s.api('GET', '/api/v1/notifications?team=hooks', undefined, viewer.headers), 404, 'not_found');

    const onlyBudget = await s.api('GET', '/api/v1/notifications?team=quiet-team&kind=key.budget_alert');
    expect(onlyBudget.json().items).toHaveLength(1);
    expectErrorCode(await s.api('GET', '/api/v1/notifications?kind=nope'), 400, 'validation_failed');

    // The admin sees every team; the delivered test events above carry their counts; pages follow the cursor.
    const hooksTeam = await s.api('GET', '/api/v1/notifications?team=hooks&kind=webhook.test&limit=200');
    const summaries = hooksTeam.json().items.map((n: { deliveries: { total: number; delivered: number; failed: number } }) => n.deliveries);
    expect(summaries.some((x: { delivered: number }) => x.delivered === 1)).toBe(true);
    expect(summaries.some((x: { failed: number }) => x.failed === 1)).toBe(true);
    const ids: string[] = [];
    let cursor = '';
    do {
      const page = await s.api('GET', `/api/v1/notifications?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      ids.push(...page.json().items.map((n: { id: string }) => n.id));
      cursor = page.json().next_cursor ?? '';
    } while (cursor);
    const all = (await s.api('GET', '/api/v1/notifications?limit=200')).json().items.map((n: { id: string }) => n.id);
    expect(ids).toEqual(all);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
