/**
 * The ingest's rate limits, exact across nodes (the shared counters run them atomically in Redis):
 *
 * - the project's events per minute: a sliding 60 s window (`projects.events_per_minute`, default 600);
 * - the team's monthly error events (`errors.events` team limit, calendar month UTC): a counter every accepted
 *   event increments, limit or not, so that a limit set mid-month starts from the true count. With a limit, each
 *   event increments it at once (exact across nodes; sent with the minute's hit, so an envelope costs one Redis
 *   round trip, and taken back when the event is refused); without one, increments are summed here and added every
 *   quarter second (one Redis call instead of one per event; flush() on shutdown).
 *
 * The minute's hits of the requests a node reads in one turn of its event loop go to Redis together, one script call
 * per project (Counters.hitMany) instead of one per event: admitted in arrival order, exactly as many as the window
 * has room for.
 *
 * A refusal is a 429 with `Retry-After` and the rate-limit header SDKs read (X-Sentry-Rate-Limits, and ours,
 * X-Client-Rate-Limits, with the same value), e.g. `60:error;default:project:project_events_per_minute`.
 * @see https://develop.sentry.dev/sdk/expected-features/rate-limiting/
 */
import type { Counters, HitResult } from '../core/counters/counters.ts';
import { svcError } from '../core/errors.ts';
import type { Clock } from '../core/clock.ts';
import type { IngestProject, ProjectLookup } from './project-lookup.ts';
import { rateLimitHeaders } from './lib/rate-limit-header.ts';

const MINUTE_MS = 60_000;
const MONTH_TTL_MS = 35 * 86_400_000;

/** The event categories a refusal covers: error events and default (message) events. */
const EVENT_CATEGORIES = ['error', 'default'] as const;

const MONTHLY_FLUSH_MS = 250;

/** The hits of one project waiting for the end of the event loop's turn. */
interface PendingHits {
  limit: number;
  waiters: Array<{ resolve(r: HitResult): void; reject(e: unknown): void }>;
}

export class IngestLimiter {
  #counters: Counters;
  #lookup: ProjectLookup;
  #clock: Clock;
  #unlimited = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #hits = new Map<string, PendingHits>();
  #hitsScheduled = false;

  constructor(counters: Counters, lookup: ProjectLookup, clock: Clock) {
    this.#counters = counters;
    this.#lookup = lookup;
    this.#clock = clock;
  }

  /** Adds the summed monthly counts of unlimited teams to the shared counters. */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = [...this.#unlimited];
    this.#unlimited.clear();
    await Promise.all(pending.map(([key, n]) => this.#counters.incrBy(key, n, MONTH_TTL_MS).catch(() => {
      this.#unlimited.set(key, (this.#unlimited.get(key) ?? 0) + n);
    })));
  }

  /**
   * Admits one event of the project or throws project_events_per_minute / team_errors_events (429). The Redis work
   * is one round trip: with a team limit, the minute's hit and the month's increment are sent together (ioredis
   * pipelines them), and the increment is taken back when either refuses.
   */
  async admitEvent(project: IngestProject): Promise<void> {
    const now = this.#clock.now();
    const key = `ingest:month:${project.teamId}:${monthOf(now)}`;
    const limit = await this.#lookup.teamMonthlyEvents(project.teamId);
    const hit = this.#hit(`ingest:epm:${project.id}`, project.eventsPerMinute);
    if (limit === null) {
      this.#checkMinute(project, await hit);
      this.#unlimited.set(key, (this.#unlimited.get(key) ?? 0) + 1);
      this.#timer ??= setTimeout(() => void this.flush(), MONTHLY_FLUSH_MS).unref();
      return;
    }
    const [minute, used] = await Promise.allSettled([hit, this.#counters.incrBy(key, 1, MONTH_TTL_MS)]);
    const counted = used.status === 'fulfilled';
    const refused = minute.status === 'rejected' || !minute.value.allowed || !counted || used.value > limit;
    if (refused && counted) await this.#counters.incrBy(key, -1, MONTH_TTL_MS);
    if (minute.status === 'rejected') throw minute.reason;
    this.#checkMinute(project, minute.value);
    if (!counted) throw used.reason;
    if (used.value > limit) {
      const secs = Math.max(1, Math.ceil((nextMonthStart(now) - now) / 1000));
      throw svcError(
        'team_errors_events',
        `The team's limit of ${limit} error events this month is reached.`,
        { limit, retry_after_seconds: secs },
        rateLimitHeaders({ retryAfterSeconds: secs, categories: EVENT_CATEGORIES, scope: 'organization', reasonCode: 'team_errors_events' }),
      );
    }
  }

  /** One hit of the minute's window, sent with the others of this turn of the event loop. */
  #hit(key: string, limit: number): Promise<HitResult> {
    return new Promise((resolve, reject) => {
      let pending = this.#hits.get(key);
      if (!pending) this.#hits.set(key, (pending = { limit, waiters: [] }));
      pending.waiters.push({ resolve, reject });
      if (!this.#hitsScheduled) {
        this.#hitsScheduled = true;
        setImmediate(() => this.#sendHits());
      }
    });
  }

  #sendHits(): void {
    this.#hitsScheduled = false;
    const all = [...this.#hits];
    this.#hits.clear();
    for (const [key, { limit, waiters }] of all) {
      this.#counters.hitMany(key, limit, MINUTE_MS, waiters.length).then(
        (r) => waiters.forEach((w, i) => w.resolve(i < r.allowed
          ? { allowed: true, count: r.count - r.allowed + i + 1, retryAfterMs: 0 }
          : { allowed: false, count: r.count, retryAfterMs: r.retryAfterMs })),
        (err: unknown) => waiters.forEach((w) => w.reject(err)),
      );
    }
  }

  #checkMinute(project: IngestProject, minute: HitResult): void {
    if (minute.allowed) return;
    const secs = Math.max(1, Math.ceil(minute.retryAfterMs / 1000));
    throw svcError(
      'project_events_per_minute',
      `The project's limit of ${project.eventsPerMinute} events per minute is reached; retry in ${secs} s.`,
      { limit: project.eventsPerMinute, retry_after_seconds: secs },
      rateLimitHeaders({ retryAfterSeconds: secs, categories: EVENT_CATEGORIES, scope: 'project', reasonCode: 'project_events_per_minute' }),
    );
  }
}

/** `2026-01` for a time in January 2026 (UTC). */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
