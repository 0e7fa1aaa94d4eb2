/**
 * The webhook dispatcher, a scheduler job (one leader node at a time). A pass runs at once when an emitter announces
 * new rows on the counters' pub/sub, when a retry this node scheduled comes due, and every FALLBACK_POLL_MS for the
 * rest: an announcement lost while Redis restarted, the retries a previous leader scheduled, a lease that ran out.
 * (It polled every 500 ms before: four statements a second, about 3 ms of CPU a second on an idle node.) Each pass:
 *   1. fan-out: new outbox rows become one webhook_deliveries row per matching webhook of the team (the event kinds
 *      it subscribed to, or `*`; a `webhook.test` event goes only to the webhook it names), and are marked dispatched;
 *   2. delivery: due deliveries are claimed with a lease (FOR UPDATE SKIP LOCKED, so two passes or two nodes never
 *      claim the same row), POSTed, and every attempt is recorded in webhook_attempts; a failure is retried with
 *      backoff (retry-schedule.ts) until the last attempt, then the delivery is `failed`.
 * Due times come from ctx.clock, so tests move a ManualClock instead of waiting. A node that dies mid-attempt leaves
 * the lease to expire, and the attempt is made again (at-least-once: receivers deduplicate on X-Svc-Delivery).
 */
import type { Agent } from 'undici';
import type { AppContext } from '../../core/context.ts';
import { rfc3339 } from '../../core/clock.ts';
import type { Job } from '../../core/scheduler.ts';
import type { GuardOptions } from '../../core/net/guarded-agent.ts';
import { OUTBOX_CHANNEL } from '../../core/outbox.ts';
import { open } from '../../core/secret-box.ts';
import { DELIVERY_TIMEOUT_MS, deliverWebhook, webhookAgent, type AttemptOutcome } from './deliver-webhook.ts';
import { MAX_ATTEMPTS, retryDelayMs } from './retry-schedule.ts';

export const DISPATCH_JOB = 'webhooks.dispatch';
/** How often the leader looks for work that nothing announced. */
export const FALLBACK_POLL_MS = 5000;
/** Retry times kept for wake-ups; past this many, the later ones wait for the fallback poll. */
const MAX_WAKES = 1024;

export interface DispatcherOptions {
  pollMs?: number;
  timeoutMs?: number;
  maxAttempts?: number;
  /** Deliveries claimed (and sent in parallel) per round. */
  batchSize?: number;
  random?: () => number;
  /** Milliseconds before the next attempt after failed attempt n, or null to give up (default retry-schedule.ts). */
  retryDelayMs?: (attempt: number) => number | null;
  /** How the delivery agent resolves names and which addresses it treats as public (tests; core/net/guarded-agent.ts). */
  guard?: Pick<GuardOptions, 'resolve' | 'exempt'>;
}

export interface PassResult {
  events: number;
  delivered: number;
  retried: number;
  failed: number;
}

interface Claimed {
  id: string;
  attempts: number;
  event_id: number;
  kind: string;
  team_id: string;
  payload: unknown;
  event_created_at: Date;
  url: string;
  secret_sealed: string;
}

const FAN_OUT = `
WITH batch AS (
  SELECT id, team_id, kind, payload FROM outbox WHERE dispatched_at IS NULL ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED
), created AS (
  INSERT INTO webhook_deliveries (id, outbox_id, webhook_id, state, next_attempt_at, created_at)
  SELECT 'dlv_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 16), b.id, w.id, 'pending', $1, $1
    FROM batch b JOIN webhooks w ON w.team_id = b.team_id
   WHERE CASE WHEN b.kind = 'webhook.test' THEN w.id = b.payload->>'webhook_id'
              ELSE b.kind = ANY(w.events) OR '*' = ANY(w.events) END
  ON CONFLICT (outbox_id, webhook_id) DO NOTHING
  RETURNING 1
), marked AS (
  UPDATE outbox SET dispatched_at = $1 WHERE id IN (SELECT id FROM batch) RETURNING 1
)
SELECT (SELECT count(*) FROM marked)::int AS events, (SELECT count(*) FROM created)::int AS deliveries`;

const CLAIM = `
UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = $2
  FROM outbox o, webhooks w
 WHERE d.id IN (SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= $1
                 ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
   AND d.state = 'pending' AND o.id = d.outbox_id AND w.id = d.webhook_id
RETURNING d.id, d.attempts, o.id AS event_id, o.kind, o.team_id, o.payload, o.created_at AS event_created_at, w.url, w.secret_sealed`;

export class WebhookDispatcher {
  #ctx: AppContext;
  #agent: Agent;
  #timeoutMs: number;
  #maxAttempts: number;
  #batchSize: number;
  #pollMs: number;
  #retryDelayMs: (attempt: number) => number | null;
  #isLeader: () => boolean = () => false;
  /** When the retries this node scheduled come due (Date.now() ms, ascending), and the timer of the first. */
  #wakes: number[] = [];
  #wakeTimer: NodeJS.Timeout | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #queued: Promise<PassResult> | null = null;
  #stopped = false;

  constructor(ctx: AppContext, opts: DispatcherOptions = {}) {
    this.#ctx = ctx;
    this.#timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.#maxAttempts = opts.maxAttempts ?? MAX_ATTEMPTS;
    this.#batchSize = opts.batchSize ?? 16;
    this.#pollMs = opts.pollMs ?? FALLBACK_POLL_MS;
    const random = opts.random ?? Math.random;
    this.#retryDelayMs = opts.retryDelayMs ?? ((attempt) => retryDelayMs(attempt, this.#maxAttempts, random));
    this.#agent = webhookAgent(ctx.config.allowPrivateWebhooks, this.#timeoutMs, opts.guard);
  }

  /** The scheduler job; add it with scheduler.add(dispatcher.job()). */
  job(): Job {
    return { name: DISPATCH_JOB, everyMs: this.#pollMs, run: async () => void (await this.runOnce()) };
  }

  /** Wakes a pass as soon as an emitter announces rows (announceEvents), or a scheduled retry is due; on the leader only. */
  async listen(isLeader: () => boolean): Promise<void> {
    this.#isLeader = isLeader;
    await this.#ctx.counters.subscribe(OUTBOX_CHANNEL, () => {
      if (this.#stopped || !isLeader()) return;
      this.runOnce().catch((err) => this.#ctx.log.error({ err }, 'webhook dispatch failed'));
    });
  }

  /**
   * Runs one pass that starts after this call. Passes in this process never overlap: a call made while a pass runs
   * queues one more pass, and calls made while that one waits share it.
   */
  runOnce(): Promise<PassResult> {
    if (this.#stopped) return Promise.resolve({ events: 0, delivered: 0, retried: 0, failed: 0 });
    if (this.#queued) return this.#queued;
    const p = this.#tail.then(() => {
      this.#queued = null;
      return this.#pass();
    });
    this.#queued = p;
    this.#tail = p.catch(() => {});
    return p;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#wakeTimer);
    await this.#tail;
    await this.#agent.close().catch(() => {});
  }

  async #pass(): Promise<PassResult> {
    const result: PassResult = { events: 0, delivered: 0, retried: 0, failed: 0 };
    if (this.#stopped) return result;
    result.events = await this.#fanOut();
    for (let round = 0; round < 20 && !this.#stopped; round++) {
      const claimed = await this.#claim();
      const outcomes = await Promise.all(claimed.map((c) => this.#attempt(c)));
      for (const o of outcomes) result[o]++;
      if (claimed.length < this.#batchSize) break;
    }
    return result;
  }

  async #fanOut(): Promise<number> {
    const now = new Date(this.#ctx.clock.now());
    const r = await this.#ctx.db.tx((q) => q.query<{ events: number; deliveries: number }>(FAN_OUT, [now]));
    return r.rows[0]?.events ?? 0;
  }

  async #claim(): Promise<Claimed[]> {
    const now = this.#ctx.clock.now();
    const lease = new Date(now + this.#timeoutMs + 50_000);
    const r = await this.#ctx.db.query<Claimed>(CLAIM, [new Date(now), lease, this.#batchSize]);
    return r.rows;
  }

  async #attempt(c: Claimed): Promise<'delivered' | 'retried' | 'failed'> {
    const body = JSON.stringify({ id: c.id, event: `evt_${c.event_id}`, kind: c.kind, team: c.team_id, created_at: rfc3339(c.event_created_at), data: c.payload });
    let secret: string;
    try {
      secret = open(this.#ctx.secretKey, c.secret_sealed);
    } catch {
      const error = 'The signing secret of this webhook cannot be decrypted with the instance secret key (was SVC_SECRET_KEY changed?).';
      return this.#record(c, { ok: false, status: null, error, durationMs: 0 });
    }
    const outcome = await deliverWebhook(this.#agent, { url: c.url, deliveryId: c.id, kind: c.kind, secret, body, unixSeconds: Math.floor(this.#ctx.clock.now() / 1000), attempt: c.attempts }, {
      timeoutMs: this.#timeoutMs,
      version: this.#ctx.version,
    });
    return this.#record(c, outcome);
  }

  async #record(c: Claimed, o: AttemptOutcome): Promise<'delivered' | 'retried' | 'failed'> {
    const now = this.#ctx.clock.now();
    const delay = o.ok ? null : this.#retryDelayMs(c.attempts);
    const state = o.ok ? 'delivered' : delay === null ? 'failed' : 'retried';
    try {
      await this.#ctx.db.tx(async (q) => {
        await q.query('INSERT INTO webhook_attempts (delivery_id, attempt, response_status, error, duration_ms, attempted_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          c.id, c.attempts, o.status, o.error, o.durationMs, new Date(now),
        ]);
        if (state === 'delivered') await q.query("UPDATE webhook_deliveries SET state = 'delivered', delivered_at = $3 WHERE id = $1 AND attempts = $2", [c.id, c.attempts, new Date(now)]);
        else if (state === 'failed') await q.query("UPDATE webhook_deliveries SET state = 'failed' WHERE id = $1 AND attempts = $2", [c.id, c.attempts]);
        else await q.query('UPDATE webhook_deliveries SET next_attempt_at = $3 WHERE id = $1 AND attempts = $2', [c.id, c.attempts, new Date(now + (delay as number))]);
      });
    } catch (err) {
      // The webhook (and its deliveries) may have been deleted while the attempt ran.
      this.#ctx.log.debug({ err, delivery: c.id }, 'could not record a webhook attempt');
    }
    if (!o.ok) this.#ctx.log.info({ delivery: c.id, attempt: c.attempts, status: o.status, outcome: state }, 'webhook delivery attempt failed');
    if (state === 'retried') this.#wakeIn(delay as number);
    return state;
  }

  /** A pass when a retry comes due (a little after: its time is compared with the clock's in the claim). */
  #wakeIn(ms: number): void {
    if (this.#stopped || this.#wakes.length >= MAX_WAKES) return;
    const at = Date.now() + ms + 10;
    let i = this.#wakes.length;
    while (i > 0 && this.#wakes[i - 1] > at) i--;
    this.#wakes.splice(i, 0, at);
    if (i === 0) this.#armWake();
  }

  #armWake(): void {
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    if (this.#stopped || this.#wakes.length === 0) return;
    this.#wakeTimer = setTimeout(() => {
      const now = Date.now();
      while (this.#wakes.length > 0 && this.#wakes[0] <= now) this.#wakes.shift();
      this.#armWake();
      if (!this.#stopped && this.#isLeader()) this.runOnce().catch((err) => this.#ctx.log.error({ err }, 'webhook dispatch failed'));
    }, Math.max(0, this.#wakes[0] - Date.now())).unref();
  }
}
