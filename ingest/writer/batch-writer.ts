/**
 * The bounded queue between the ingest fast path and Postgres. The endpoint reserves a place before it checks the
 * rate limits and commits the event once admitted; only then does the client get its 200. Batches of up to
 * `batchSize` events (or whatever arrived within `flushMs`) are written in one transaction each (write-batch.ts),
 * with the pending outcome counts.
 *
 * - Full queue (events or bytes, reservations included): ingest_queue_full (503, Retry-After) instead of growing.
 * - A transient database failure (connection, deadlock, serialisation, shutdown) keeps the batch and retries it
 *   with backoff; the queue fills meanwhile and the endpoint answers 503.
 * - Any other failure is retried event by event so that one poisonous event cannot take its batch down with it;
 *   an event that fails alone is logged (by id) and dropped.
 * - drain() (SIGTERM, after the server stopped accepting) writes everything acknowledged before it resolves.
 */
import type { AppContext } from '../../core/context.ts';
import { svcError } from '../../core/errors.ts';
import type { OutcomeCounter, OutcomeRow } from '../outcome-counter.ts';
import type { QueuedEvent } from './queued-event.ts';
import { isTransientDbError } from '../../core/db/transient-db-error.ts';

export interface WriterOptions {
  /** Most events waiting (reserved, queued or being written). */
  maxEvents: number;
  /** Most payload bytes waiting. */
  maxBytes: number;
  batchSize: number;
  flushMs: number;
  /** Batches written at once (1 on the embedded database, which has one connection). */
  concurrency: number;
  /** How long drain() keeps retrying a failing database before it gives up. */
  drainTimeoutMs: number;
}

export type WriteBatch = (events: QueuedEvent[], outcomes: OutcomeRow[]) => Promise<void>;

export interface Reservation {
  commit(event: QueuedEvent): void;
  release(): void;
}

const MAX_BACKOFF_MS = 5_000;
const OUTCOME_FLUSH_MS = 1_000;

export class BatchWriter {
  #ctx: AppContext;
  #outcomes: OutcomeCounter;
  #write: WriteBatch;
  #opts: WriterOptions;
  #queue: QueuedEvent[] = [];
  #events = 0;
  #bytes = 0;
  #running = 0;
  #timer: NodeJS.Timeout | undefined;
  #ticker: NodeJS.Timeout;
  #backoffMs = 0;
  #retryAt = 0;
  #closing = false;
  #idle: Array<() => void> = [];
  /** Events written (stored or found to be repeats) and dropped since start. */
  readonly stats = { written: 0, dropped: 0, batches: 0, retries: 0 };

  constructor(ctx: AppContext, outcomes: OutcomeCounter, write: WriteBatch, opts: WriterOptions) {
    this.#ctx = ctx;
    this.#outcomes = outcomes;
    this.#write = write;
    this.#opts = opts;
    this.#ticker = setInterval(() => this.#pump(), OUTCOME_FLUSH_MS).unref();
  }

  /** Events waiting: reserved, queued or being written. */
  get pending(): number {
    return this.#events;
  }

  /** Holds a place for one event of `bytes`, or throws ingest_queue_full. */
  reserve(bytes: number): Reservation {
    if (this.#closing) throw svcError('ingest_queue_full', 'The server is shutting down; retry shortly.', {}, { 'Retry-After': '5' });
    if (this.#events + 1 > this.#opts.maxEvents || (this.#bytes + bytes > this.#opts.maxBytes && this.#events > 0)) {
      throw svcError('ingest_queue_full', undefined, { pending_events: this.#events }, { 'Retry-After': '1' });
    }
    this.#events += 1;
    this.#bytes += bytes;
    let done = false;
    return {
      commit: (event) => {
        if (done) return;
        done = true;
        event.bytes = bytes;
        this.#queue.push(event);
        this.#schedule();
      },
      release: () => {
        if (done) return;
        done = true;
        this.#settle(1, bytes);
      },
    };
  }

  /** Stops taking events and writes everything acknowledged (and the outcome counts). */
  async drain(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#ticker);
    const deadline = Date.now() + this.#opts.drainTimeoutMs;
    while (this.#queue.length > 0 || this.#running > 0 || this.#outcomes.size > 0) {
      if (Date.now() > deadline) {
        this.#ctx.log.error({ lost_events: this.#queue.length, lost_outcome_rows: this.#outcomes.size }, 'ingest drain gave up: the database stayed unavailable');
        return;
      }
      this.#retryAt = Math.min(this.#retryAt, Date.now() + 200);
      this.#pump();
      await new Promise<void>((resolve) => {
        this.#idle.push(resolve);
        setTimeout(resolve, 50).unref();
      });
    }
    if (this.#timer) clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#queue.length >= this.#opts.batchSize) {
      this.#pump();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, this.#opts.flushMs);
  }

  #pump(): void {
    const now = Date.now();
    if (now < this.#retryAt) {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#pump();
      }, this.#retryAt - now);
      return;
    }
    while (this.#running < this.#opts.concurrency && (this.#queue.length > 0 || (this.#running === 0 && this.#outcomes.size > 0))) {
      const batch = this.#queue.splice(0, this.#opts.batchSize);
      this.#running += 1;
      void this.#run(batch).finally(() => {
        this.#running -= 1;
        for (const wake of this.#idle.splice(0)) wake();
        if (this.#queue.length >= this.#opts.batchSize || (this.#queue.length > 0 && !this.#timer)) this.#pump();
      });
    }
  }

  async #run(batch: QueuedEvent[]): Promise<void> {
    const outcomes = this.#outcomes.take();
    try {
      await this.#write(batch, outcomes);
      this.#done(batch, batch.length, 0);
      this.#backoffMs = 0;
    } catch (err) {
      this.#outcomes.putBack(outcomes);
      if (isTransientDbError(err)) {
        this.#retryLater(batch, err);
        return;
      }
      if (batch.length <= 1) {
        this.#ctx.log.error({ err, event_id: batch[0]?.eventId, project: batch[0]?.project.id }, 'ingest writer dropped an event it could not store');
        this.#done(batch, 0, batch.length);
        return;
      }
      this.#ctx.log.warn({ err, events: batch.length }, 'ingest batch failed; writing its events one by one');
      for (const event of batch) await this.#run([event]);
    }
  }

  #retryLater(batch: QueuedEvent[], err: unknown): void {
    this.stats.retries += 1;
    this.#backoffMs = Math.min(MAX_BACKOFF_MS, this.#backoffMs === 0 ? 100 : this.#backoffMs * 2);
    // Jitter, so that two writers that just deadlocked each other do not meet again in lockstep.
    this.#retryAt = Date.now() + Math.round(this.#backoffMs * (0.5 + Math.random()));
    this.#queue.unshift(...batch);
    this.#ctx.log.warn({ err, events: batch.length, retry_in_ms: this.#backoffMs }, 'ingest batch failed on a transient database error; retrying');
  }

  #done(batch: QueuedEvent[], written: number, dropped: number): void {
    this.stats.written += written;
    this.stats.dropped += dropped;
    if (written > 0) this.stats.batches += 1;
    this.#settle(batch.length, batch.reduce((n, e) => n + e.bytes, 0));
  }

  #settle(events: number, bytes: number): void {
    this.#events -= events;
    this.#bytes -= bytes;
  }
}
