/**
 * Retention of the outbox and webhook deliveries: finished deliveries go after their period (30 days by default),
 * handled events after theirs (7 days) once none of their deliveries is left; pending (retrying) deliveries, their
 * events and undispatched events stay; deletes run in batches until done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { ConfigError, loadConfig } from '../../core/config.ts';
import { emitEvent, type EventKind } from '../../core/outbox.ts';
import { DISPATCH_JOB } from '../../control-plane/webhooks/dispatcher.ts';
import { OUTBOX_RETENTION_JOB, runOutboxRetention } from '../../control-plane/webhooks/outbox-retention.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam } from './access-fixtures.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

const DAY = 86_400_000;

interface Env {
  s: TestServer;
  clock: ManualClock;
  team: string;
}

async function openEnv(name: string, env: Record<string, string> = {}): Promise<Env> {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 9, 0, 0));
  const s = await startTestServer({ clock, env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true', ...env } });
  // Jobs run only when a test asks (runNow), so each step is deterministic.
  await s.scheduler.stop();
  return { s, clock, team: await makeTeam(s, name) };
}

/** Emits an event created at `at` (the clock's now by default; the outbox's own default is the database's now()). */
function emit(e: Env, kind: EventKind, at = e.clock.now()): Promise<number> {
  return e.s.db.tx(async (q) => {
    const id = await emitEvent(q, e.team, kind, { at });
    await q.query('UPDATE outbox SET created_at = $2 WHERE id = $1', [id, new Date(at)]);
    return id;
  });
}

async function createHook(e: Env, url: string, events: string[]): Promise<string> {
  const res = await e.s.api('POST', '/api/v1/webhooks', { url, events }, { 'x-svc-team': e.team });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

const ids = async (e: Env, sql: string): Promise<number[]> => (await e.s.db.query<{ id: string }>(sql)).rows.map((r) => Number(r.id));
const eventIds = (e: Env) => ids(e, 'SELECT id FROM outbox ORDER BY id');
const deliveryStates = async (e: Env) =>
  (await e.s.db.query<{ outbox_id: string; state: string; attempts: number }>('SELECT outbox_id, state, attempts FROM webhook_deliveries ORDER BY outbox_id'))
    .rows.map((r) => ({ event: Number(r.outbox_id), state: r.state, attempts: r.attempts }));
const attemptCount = async (e: Env) => (await e.s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts')).rows[0].n;

describe('outbox and delivery retention', () => {
  let e: Env;
  let ok: Receiver;
  let down: Receiver;

  beforeAll(async () => {
    e = await openEnv('keep-hooks');
    ok = await startReceiver();
    down = await startReceiver();
    down.fallback = 500;
    await createHook(e, `${ok.url}/ok`, ['issue.new']);
    await createHook(e, `${down.url}/down`, ['issue.spike']);
  });
  afterAll(async () => {
    await e?.s.close();
    await ok?.close();
    await down?.close();
  });

  it('keeps what is recent, pending or undispatched, and deletes the rest once past its period', async () => {
    const dispatch = () => e.s.scheduler.runNow(DISPATCH_JOB);
    const delivered = await emit(e, 'issue.new');
    const unsubscribed = await emit(e, 'account.state_changed');
    const retrying = await emit(e, 'issue.spike');
    await dispatch();

    e.clock.advance(8 * DAY);
    const recent = await emit(e, 'issue.new');
    await dispatch();
    // Written 8 days ago and never dispatched (a dispatcher that was down): it has not been handled yet.
    const undispatched = await emit(e, 'issue.new', e.clock.now() - 8 * DAY);
    expect(await deliveryStates(e)).toEqual([
      { event: delivered, state: 'delivered', attempts: 1 },
      { event: retrying, state: 'pending', attempts: 2 },
      { event: recent, state: 'delivered', attempts: 1 },
    ]);

    // Day 8: past the events' 7 days, within the deliveries' 30. Only the event without deliveries goes; the
    // delivered one stays with its delivery record, the retrying one with its pending delivery.
    expect(await runOutboxRetention(e.s.ctx)).toEqual({ deliveries: 0, events: 1 });
    expect(await eventIds(e)).toEqual([delivered, retrying, recent, undispatched]);
    expect(await eventIds(e)).not.toContain(unsubscribed);

    // Day 31, through the scheduler job: the first delivery (and its attempt) goes, then its event; the pending
    // delivery is 31 days old but unfinished, so it and its event stay; the undispatched event stays.
    e.clock.advance(23 * DAY);
    const attemptsBefore = await attemptCount(e);
    await e.s.scheduler.runNow(OUTBOX_RETENTION_JOB);
    expect(await eventIds(e)).toEqual([retrying, recent, undispatched]);
    expect(await deliveryStates(e)).toEqual([
      { event: retrying, state: 'pending', attempts: 2 },
      { event: recent, state: 'delivered', attempts: 1 },
    ]);
    expect(await attemptCount(e)).toBe(attemptsBefore - 1);

    // The retried delivery finally succeeds; being 31 days old, it goes at the next run, and its event with it.
    down.fallback = 200;
    await dispatch();
    expect((await deliveryStates(e)).find((d) => d.event === retrying)).toEqual({ event: retrying, state: 'delivered', attempts: 3 });
    expect(await runOutboxRetention(e.s.ctx)).toEqual({ deliveries: 1, events: 1 });
    // The undispatched event was dispatched by that pass: it now has a fresh delivery and waits for it.
    expect(await eventIds(e)).toEqual([recent, undispatched]);
    const notes = (await e.s.api('GET', '/api/v1/notifications?team=keep-hooks')).json();
    expect(notes.items.map((n: { id: string }) => n.id)).toEqual([`evt_${undispatched}`, `evt_${recent}`]);
  });
});

describe('outbox retention settings and batches', () => {
  let e: Env;
  beforeAll(async () => {
    e = await openEnv('keep-batches', { SVC_OUTBOX_RETENTION_DAYS: '2', SVC_WEBHOOK_DELIVERY_RETENTION_DAYS: '3' });
  });
  afterAll(async () => e?.s.close());

  it('reads its periods from the configuration and loops over batches until nothing is left', async () => {
    const rx = await startReceiver();
    try {
      await createHook(e, `${rx.url}/batch`, ['issue.new']);
      for (let i = 0; i < 5; i++) await emit(e, 'issue.new');
      for (let i = 0; i < 5; i++) await emit(e, 'key.budget_alert');
      await e.s.scheduler.runNow(DISPATCH_JOB);
      expect(rx.requests).toHaveLength(5);

      // Day 2.5: the five events without deliveries are past SVC_OUTBOX_RETENTION_DAYS=2; with batches of 2 they go
      // in three statements. The deliveries (3 days) and their events stay.
      e.clock.advance(2.5 * DAY);
      expect(await runOutboxRetention(e.s.ctx, 2)).toEqual({ deliveries: 0, events: 5 });
      expect(await eventIds(e)).toHaveLength(5);

      // Day 3.5: the five deliveries are past SVC_WEBHOOK_DELIVERY_RETENTION_DAYS=3, then their events.
      e.clock.advance(DAY);
      expect(await runOutboxRetention(e.s.ctx, 2)).toEqual({ deliveries: 5, events: 5 });
      expect(await eventIds(e)).toEqual([]);
      expect(await attemptCount(e)).toBe(0);
      expect(await runOutboxRetention(e.s.ctx, 2)).toEqual({ deliveries: 0, events: 0 });
    } finally {
      await rx.close();
    }
  });

  it('defaults to 7 days for events and 30 for deliveries, and names a bad setting', () => {
    expect(loadConfig({})).toMatchObject({ outboxRetentionDays: 7, webhookDeliveryRetentionDays: 30 });
    for (const [variable, raw] of [['SVC_OUTBOX_RETENTION_DAYS', '0'], ['SVC_WEBHOOK_DELIVERY_RETENTION_DAYS', 'a month']]) {
      expect(() => loadConfig({ [variable]: raw })).toThrow(ConfigError);
      expect(() => loadConfig({ [variable]: raw })).toThrow(variable);
    }
  });
});
