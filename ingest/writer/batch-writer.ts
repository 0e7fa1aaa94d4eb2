/**
 * The bounded queue between the ingest fast path and Postgres, on the shared durable write path
 * (core/writes/durable-writer.ts). The endpoint reserves a place before it checks the rate limits and commits the
 * event once admitted; the commit's promise resolves once the event is durable, and only then does the client get
 * its 200. Durable is cheap on purpose (the Relay/Kafka pattern, in Postgres): a group of events (up to `batchSize`,
 * or whatever arrived within `flushMs`) is one INSERT into ingest_inbox (ingest-inbox.ts), or, while Postgres is
 * unreachable, an fsynced append to the events journal, replayed into the inbox once it is back. The events just
 * committed are then processed from memory (event-processor.ts: prepare, store, outcome counts, and the deletion of
 * their inbox rows, in one transaction per batch; one batch at a time, of whatever was acknowledged meanwhile).
 *
 * - Full queue: events waiting for the inbox plus events in it not yet processed (so a stuck processing refuses
 *   new events instead of filling the inbox), or their bytes: ingest_queue_full (503, Retry-After).
 *   Database down and journal full: journal_full (503, Retry-After).
 * - An event the processing refuses for its content (it was answered 200 already) is counted invalid
 *   (invalid_event) and logged, and its inbox row deleted.
 * - Rows another node left in the inbox (it crashed after the inbox commit) are claimed once their lease ran out,
 *   at start and every `sweepMs`, and processed here. A repeated (project, event_id) (a replay, a recovered row)
 *   is stored and counted once.
 * - drain() (SIGTERM, after the server stopped accepting) makes everything acknowledged durable, processes what
 *   this node committed to the inbox, then writes the outcome counts.
 */
import type { AppContext } from '../../core/context.ts';
import { isSvcError, svcError } from '../../core/errors.ts';
import { DurableWriter, type Reservation as RowReservation, type RowRejection, type WriteResult } from '../../core/writes/durable-writer.ts';
import type { WriteJournal } from '../../core/writes/write-journal.ts';
import { invalid } from '../lib/item-outcome.ts';
import type { OutcomeCounter, OutcomeRow } from '../outcome-counter.ts';
import { EventProcessor, type InboxItem, type ProcessBatch } from './event-processor.ts';
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
  /** How often rows left in the inbox by another node are looked for. */
  sweepMs?: number;
}

/** Where acknowledged events are made durable (ingest_inbox; a fake in unit tests). */
export interface Inbox {
  /** Commits the events (one statement); returns their row ids in order. */
  insert(events: readonly QueuedEvent[]): Promise<string[]>;
  /** Claims up to `limit` rows whose node's lease ran out. */
  claimExpired(limit: number): Promise<InboxItem[]>;
}

/** Writes events and outcome counts and deletes their inbox rows in one transaction; returns the events it left out for their content. */
export type WriteBatch = ProcessBatch;

export type Reservation = RowReservation<QueuedEvent>;

const OUTCOME_FLUSH_MS = 1_000;
const NO_BYTES = Buffer.alloc(0);
/**
 * How long acknowledged events gather before they are processed (nobody waits for the processing: the client has its
 * 200 once the inbox row is committed). A batch has fixed costs (six round trips, a transaction) whatever its size, so
 * a node serving few events should not pay them for one or two: at 100 events/s a node now makes batches of about ten
 * instead of two (docs/deployment.md, "CPU per request with one, two and three proxy nodes"). Under load a batch
 * leaves as soon as the one before it commits, so this wait only applies to a processor that was idle.
 */
const PROCESS_WAIT_MS = 100;
const SWEEP_MS = 5_000;

export class BatchWriter {
  #ctx: AppContext;
  #outcomes: OutcomeCounter;
  #write: WriteBatch;
  #inbox: Inbox;
  #rows: DurableWriter<QueuedEvent>;
  #processor: EventProcessor;
  #maxEvents: number;
  #maxBytes: number;
  #drainTimeoutMs: number;
  #ticker: NodeJS.Timeout;
  #sweeper: NodeJS.Timeout;
  #sweeping = false;
  #closing = false;
  #flushingOutcomes = false;

  constructor(ctx: AppContext, outcomes: OutcomeCounter, write: WriteBatch, inbox: Inbox, opts: WriterOptions) {
    this.#ctx = ctx;
    this.#outcomes = outcomes;
    this.#write = write;
    this.#inbox = inbox;
    this.#maxEvents = opts.maxEvents;
    this.#maxBytes = opts.maxBytes;
    this.#drainTimeoutMs = opts.drainTimeoutMs;
    this.#processor = new EventProcessor({
      log: ctx.log,
      write,
      batchSize: opts.batchSize,
      flushMs: Math.max(opts.flushMs, PROCESS_WAIT_MS),
      // One processing transaction at a time: what is acknowledged meanwhile gathers into the next batch, so batches
      // grow with the load (fewer statements per event), and this node's batches never wait for each other's locks
      // on the same issues. The acknowledgements, which clients wait for, keep `concurrency` commits at once.
      concurrency: 1,
      takeOutcomes: () => this.#outcomes.take(),
      putBackOutcomes: (rows) => this.#outcomes.putBack(rows),
      onRejected: (e) => this.#outcomes.add(e.project.id, e.receivedAt, invalid('invalid_event'), 'error'),
    });
    this.#rows = new DurableWriter<QueuedEvent>({
      name: 'events',
      log: ctx.log,
      commit: (events) => this.#toInbox(events),
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
    this.#sweeper = setInterval(() => void this.sweep(), opts.sweepMs ?? SWEEP_MS).unref();
    setImmediate(() => void this.sweep());
  }

  /** Events waiting: reserved, queued or being written to the inbox, and in the inbox not yet processed. */
  get pending(): number {
    return this.#rows.pending + this.#processor.pending;
  }

  get processorStats(): EventProcessor['stats'] {
    return this.#processor.stats;
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
    const processing = this.#processor.pending;
    if (!this.#closing && processing > 0 && (processing + this.#rows.pending + 1 > this.#maxEvents || this.#processor.pendingBytes + bytes > this.#maxBytes)) {
      throw svcError('ingest_queue_full', undefined, { pending_events: this.pending }, { 'Retry-After': '1' });
    }
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
    this.#closing = true;
    clearInterval(this.#ticker);
    clearInterval(this.#sweeper);
    const deadline = Date.now() + this.#drainTimeoutMs;
    await this.#rows.drain(this.#drainTimeoutMs);
    if (!(await this.#processor.settle(deadline))) {
      // They stay in the inbox: any node claims them once their lease runs out.
      this.#ctx.log.error({ unprocessed_events: this.#processor.pending }, 'ingest drain left acknowledged events in the inbox: the database stayed unavailable');
    }
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

  /**
   * Claims rows whose node's lease ran out (a node that crashed after the inbox commit) and processes them here,
   * while the backlog has room. Runs at start and every sweepMs.
   */
  async sweep(): Promise<void> {
    if (this.#sweeping || this.#closing || this.#rows.databaseDown) return;
    this.#sweeping = true;
    try {
      const room = Math.min(this.#maxEvents - this.pending, this.#processor.batchSize * 4);
      if (room <= 0) return;
      const items = await this.#inbox.claimExpired(room);
      if (items.length === 0) return;
      this.#ctx.log.info({ events: items.length }, 'processing events another node left in the inbox');
      this.#processor.add(items);
    } catch (err) {
      this.#ctx.log.warn({ err }, 'the ingest inbox could not be swept; retrying later');
    } finally {
      this.#sweeping = false;
    }
  }

  /** The durable commit: the events' inbox rows; then they are handed to the processing. */
  async #toInbox(events: QueuedEvent[]): Promise<void> {
    const ids = await this.#inbox.insert(events);
    // A prepared event needs its bytes no more (the inbox has them for a recovery): the processing holds its row
    // alone. A copy: the writer may still journal the original (a batch split by a failure is journaled whole).
    this.#processor.add(events.map((event, i) => ({ id: ids[i], event: event.prepared ? { ...event, payload: NO_BYTES } : event })));
  }

  async #commit(events: QueuedEvent[]): Promise<readonly RowRejection[] | void> {
    const outcomes = this.#outcomes.take();
    try {
      return await this.#write(events, outcomes, []);
    } catch (err) {
      this.#outcomes.putBack(outcomes);
      throw err;
    }
  }

  /** Outcome counts alone, while no batch carries them (an idle writer); true when written or nothing to write. */
  async #flushOutcomes(): Promise<boolean> {
    if (this.#outcomes.size === 0) return true;
    if (this.#flushingOutcomes || this.pending > 0) return false;
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
