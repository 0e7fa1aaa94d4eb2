/**
 * The bounded queue between the ingest fast path and Postgres, on the shared durable write path
 * (core/writes/durable-writer.ts). The endpoint reserves a place before it checks the rate limits and commits the
 * event once admitted; the commit's promise resolves once the event is durable (committed, or fsynced to the
 * events journal while Postgres is unreachable), and only then does the client get its 200. Batches of up to
 * `batchSize` events (or whatever arrived within `flushMs`) are written in one transaction each (write-batch.ts),
 * with the pending outcome counts.
 *
 * - Full queue (events or bytes, reservations included): ingest_queue_full (503, Retry-After) instead of growing.
 *   Database down and journal full: journal_full (503, Retry-After).
 * - A batch refused for one event's content is split until that event is alone; it resolves `rejected` and the
 *   endpoint counts it invalid. An event the prepare step cannot read is rejected the same way.
 * - Replays repeat events already committed (a crash between commit and segment deletion): the events table skips
 *   a repeated (project, event_id), so it counts once.
 * - drain() (SIGTERM, after the server stopped accepting) makes everything acknowledged durable, then writes the
 *   outcome counts.
 */
import type { AppContext } from '../../core/context.ts';
import { isSvcError, svcError } from '../../core/errors.ts';
import { DurableWriter, type Reservation as RowReservation, type RowRejection, type WriteResult } from '../../core/writes/durable-writer.ts';
import type { WriteJournal } from '../../core/writes/write-journal.ts';
import { invalid } from '../lib/item-outcome.ts';
import type { OutcomeCounter, OutcomeRow } from '../outcome-counter.ts';
import type { QueuedEvent } from './queued-event.ts';
import { queuedEventCodec } from './queued-event-codec.ts';

export interface WriterOptions {
  /** Most events waiting (reserved, queued or being written). */
  maxEvents: number;
  /** Most payload bytes waiting. */
  maxBytes: number;
  batchSize: number;
  flushMs: number;
  /** Batches written at once (1 on the embedded database, which has one connection). */
  concurrency: number;
  /** How long drain() keeps trying before it gives up. */
  drainTimeoutMs: number;
  /** Where events go while Postgres is unreachable; without one, batches are retried in memory. */
  journal?: WriteJournal;
}

/** Writes events and outcome counts in one transaction; returns the events it left out for their content. */
export type WriteBatch = (events: QueuedEvent[], outcomes: OutcomeRow[]) => Promise<readonly RowRejection[] | void>;

export type Reservation = RowReservation<QueuedEvent>;

const OUTCOME_FLUSH_MS = 1_000;

export class BatchWriter {
  #ctx: AppContext;
  #outcomes: OutcomeCounter;
  #write: WriteBatch;
  #rows: DurableWriter<QueuedEvent>;
  #drainTimeoutMs: number;
  #ticker: NodeJS.Timeout;
  #flushingOutcomes = false;

  constructor(ctx: AppContext, outcomes: OutcomeCounter, write: WriteBatch, opts: WriterOptions) {
    this.#ctx = ctx;
    this.#outcomes = outcomes;
    this.#write = write;
    this.#drainTimeoutMs = opts.drainTimeoutMs;
    this.#rows = new DurableWriter<QueuedEvent>({
      name: 'events',
      log: ctx.log,
      commit: (events) => this.#commit(events),
      sizeOf: (e) => e.payload.length,
      maxRows: opts.maxEvents,
      maxBytes: opts.maxBytes,
      batchSize: opts.batchSize,
      flushMs: opts.flushMs,
      concurrency: opts.concurrency,
      ...(opts.journal ? { journal: { journal: opts.journal, codec: queuedEventCodec } } : {}),
      whenJournalFull: 'reject',
      refuse: (reason, pending) => reason === 'closing'
        ? svcError('ingest_queue_full', 'The server is shutting down; retry shortly.', {}, { 'Retry-After': '5' })
        : svcError('ingest_queue_full', undefined, { pending_events: pending }, { 'Retry-After': '1' }),
      onReplayRejected: (e, reason) => {
        this.#ctx.log.error({ event_id: e.eventId, project: e.project.id, reason }, 'ingest writer could not store a journaled event');
        this.#outcomes.add(e.project.id, e.receivedAt, invalid('invalid_event'), 'error');
      },
    });
    this.#ticker = setInterval(() => void this.#flushOutcomes(), OUTCOME_FLUSH_MS).unref();
  }

  /** Events waiting: reserved, queued or being written. */
  get pending(): number {
    return this.#rows.pending;
  }

  /** True while Postgres is unreachable and events go to the journal (for health reports). */
  get databaseDown(): boolean {
    return this.#rows.databaseDown;
  }

  /** Bytes waiting in the events journal. */
  get journalBytes(): number {
    return this.#rows.journalBytes;
  }

  get stats(): DurableWriter<QueuedEvent>['stats'] {
    return this.#rows.stats;
  }

  /** When an event was last refused because the journal could not take it. */
  #journalRefusedAt = -Infinity;

  /**
   * What health reports: whether the database is down (events go to the journal), its size, and whether it is full:
   * it refused an event in the last 5 s (an event larger than the room left is refused before the last byte is used).
   */
  get journalState(): { databaseDown: boolean; journalBytes: number; full: boolean } {
    const down = this.#rows.databaseDown;
    return { databaseDown: down, journalBytes: this.#rows.journalBytes, full: this.#rows.full || (down && performance.now() - this.#journalRefusedAt < 5000) };
  }

  /** Holds a place for one event of `bytes`, or throws ingest_queue_full / journal_full. */
  reserve(bytes: number): Reservation {
    try {
      return this.#rows.reserve(bytes);
    } catch (e) {
      if (isSvcError(e) && e.code === 'journal_full') this.#journalRefusedAt = performance.now();
      throw e;
    }
  }

  /** Replays the events journal now (the writer also does so by itself at start and once Postgres is back). */
  replay(): Promise<void> {
    return this.#rows.replay();
  }

  /** Stops taking events, makes everything acknowledged durable, and writes the outcome counts. */
  async drain(): Promise<void> {
    clearInterval(this.#ticker);
    const deadline = Date.now() + this.#drainTimeoutMs;
    await this.#rows.drain(this.#drainTimeoutMs);
    // The requests answered by the last commits count their items' outcomes in their own continuations: let them run.
    await new Promise((r) => setImmediate(r));
    while (this.#outcomes.size > 0) {
      if (Date.now() > deadline) {
        this.#ctx.log.error({ lost_outcome_rows: this.#outcomes.size }, 'ingest drain gave up writing outcome counts: the database stayed unavailable');
        return;
      }
      if (!(await this.#flushOutcomes())) await new Promise((r) => setTimeout(r, 200));
    }
  }

  async #commit(events: QueuedEvent[]): Promise<readonly RowRejection[] | void> {
    const outcomes = this.#outcomes.take();
    try {
      return await this.#write(events, outcomes);
    } catch (err) {
      this.#outcomes.putBack(outcomes);
      throw err;
    }
  }

  /** Outcome counts alone, while no batch carries them (an idle writer); true when written or nothing to write. */
  async #flushOutcomes(): Promise<boolean> {
    if (this.#outcomes.size === 0) return true;
    if (this.#flushingOutcomes || this.#rows.pending > 0) return false;
    this.#flushingOutcomes = true;
    try {
      await this.#commit([]);
      return true;
    } catch (err) {
      this.#ctx.log.warn({ err }, 'ingest outcome counts could not be written; retrying');
      return false;
    } finally {
      this.#flushingOutcomes = false;
    }
  }
}

export type { WriteResult };
