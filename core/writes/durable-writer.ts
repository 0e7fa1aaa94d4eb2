/**
 * The one write path of every hot-path writer (events, usage records, call bodies; STYLE.md a.16): a bounded queue,
 * group commit, and a promise per row that resolves only once the row is durable.
 *
 * - reserve()/write() take a place in the queue, or throw the caller's refusal when it is full (rows or bytes,
 *   reservations included) or closing, or journal_full when the database is down and the journal is full.
 * - Group commit: rows are committed in batches (one `commit` call = one transaction) of up to `batchSize` rows /
 *   `batchBytes`, or whatever arrived within `flushMs` of the first; `concurrency` batches at once, and rows that
 *   arrive while every slot is busy gather for the next slot to finish. (Waiting a few ms for others costs latency
 *   but makes fewer round trips per row; measured on the ingest bench, 5 ms beat flushing at once.)
 * - A row's promise resolves `committed` once Postgres has it, or `journaled` once it is appended and fsynced to the
 *   writer's local journal (write-journal.ts). The journal is used while Postgres is unreachable: a transient
 *   failure (isRetryable, write-failure.ts) marks the database down and sends the batch, and every later one, to the journal
 *   until a replay commits again. Without a journal the batch is kept and retried with backoff.
 * - A batch that fails for its content (SQLSTATE class 22 data exception, 23 integrity violation, 54 limit exceeded,
 *   or an error of the writer's own code) is split in halves until the bad row is alone; that row resolves
 *   `rejected` with the reason, the others are written. No row is retried forever for its content. Any other
 *   database error (a missing table, an internal error) is about the database, not the row: it is handled like an
 *   unreachable database, so no row is lost to it.
 * - The journal is replayed (journal-replayer.ts) at start and whenever rows went to it: segments are committed oldest first, in
 *   batches, with backoff while the database stays down, and deleted once all their rows are committed. A crash
 *   between the commit and the deletion replays the segment again, and a batch split by a transient failure may be
 *   journaled with rows already committed, so `commit` must be idempotent (each writer says how: event ids, record
 *   ids, primary keys).
 * - When the journal is full: `whenJournalFull: 'reject'` refuses new rows and fails queued ones with journal_full
 *   (the caller has not answered yet and can refuse, e.g. ingest's 503); 'hold' keeps them queued and retries (the
 *   caller already served something it must not lose, e.g. a usage record; it checks `full` before serving more).
 * - drain() (shutdown, after the server stopped accepting) makes every queued row durable and stops the replayer.
 */
import { isSvcError, svcError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { JournalReplayer } from './journal-replayer.ts';
import { failureReason, isRetryable, jitter, nextBackoff } from './write-failure.ts';
import type { WriteJournal } from './write-journal.ts';
import { trackWriter } from '../metrics/writer-metrics.ts';

export type WriteResult = { status: 'committed' } | { status: 'journaled' } | { status: 'rejected'; reason: string };

/** A row `commit` left out for its content while writing the others (index into the rows it was given). */
export interface RowRejection {
  index: number;
  reason: string;
}

export interface RowCodec<T> {
  encode(row: T): Buffer;
  decode(bytes: Buffer): T;
}

export type RefusalReason = 'queue_full' | 'closing';

export interface DurableWriterOptions<T> {
  /** For logs. */
  name: string;
  log: Logger;
  /** Writes the rows in one transaction; must be idempotent (see above). */
  commit(rows: T[]): Promise<readonly RowRejection[] | void>;
  /** Bytes a row counts for in the queue bound. */
  sizeOf(row: T): number;
  /** Most rows waiting (reserved, queued or being written). */
  maxRows: number;
  /** Most bytes waiting. */
  maxBytes: number;
  batchSize: number;
  /** Most bytes in one batch (a single larger row still goes alone). */
  batchBytes?: number;
  /** How long the first queued row waits for others. */
  flushMs: number;
  concurrency?: number;
  /** The journal and how rows are stored in it; without one, transient failures are retried in memory. */
  journal?: { journal: WriteJournal; codec: RowCodec<T> };
  whenJournalFull?: 'reject' | 'hold';
  /** The error thrown by reserve() when the queue is full or the writer is closing. */
  refuse(reason: RefusalReason, pending: number): Error;
  /** A row refused for its content during a replay (nobody waits for it any more). */
  onReplayRejected?(row: T, reason: string): void;
  isTransient?(err: unknown): boolean;
}

export interface Reservation<T> {
  commit(row: T): Promise<WriteResult>;
  release(): void;
}

interface Entry<T> {
  row: T;
  bytes: number;
  resolve(r: WriteResult): void;
  reject(e: Error): void;
}

export class DurableWriter<T> {
  #o: DurableWriterOptions<T>;
  #queue: Entry<T>[] = [];
  #rows = 0;
  #bytes = 0;
  #running = 0;
  #timer: NodeJS.Timeout | undefined;
  #retryAt = 0;
  #backoffMs = 0;
  #dbDown = false;
  #journalRefused = false;
  #replayer: JournalReplayer<T> | undefined;
  #closing = false;
  #idle: Array<() => void> = [];
  readonly stats = { committed: 0, journaled: 0, replayed: 0, rejected: 0, batches: 0, retries: 0 };
  /** Shown on /metrics (queue depth, journal, batch times) until drained. */
  #metrics: ReturnType<typeof trackWriter>;

  constructor(options: DurableWriterOptions<T>) {
    this.#o = { concurrency: 1, whenJournalFull: 'reject', isTransient: isRetryable, ...options };
    this.#metrics = trackWriter(this);
    const j = this.#o.journal;
    if (j) {
      this.#replayer = new JournalReplayer<T>({
        name: this.#o.name,
        log: this.#o.log,
        journal: j.journal,
        codec: j.codec,
        batchSize: this.#o.batchSize,
        commit: (rows) => this.#commitSplitting(rows),
        isRetryable: (err) => this.#o.isTransient?.(err) ?? false,
        closing: () => this.#closing,
        onRejected: (row, reason) => {
          this.stats.rejected += 1;
          if (row !== undefined) this.#o.onReplayRejected?.(row, reason);
        },
        onSegmentReplayed: (rows) => {
          this.stats.replayed += rows;
          // An empty segment was removed without asking the database: it says nothing about it being back.
          if (rows === 0) return;
          // The database took rows again: new batches go to it directly, and the journal has room again.
          this.#dbDown = false;
          this.#journalRefused = false;
        },
      });
      if (!j.journal.empty) this.#kickReplay();
    }
  }

  get name(): string {
    return this.#o.name;
  }

  /** Rows waiting: reserved, queued or being written. */
  get pending(): number {
    return this.#rows;
  }

  /** True while a transient failure sends new batches to the journal. */
  get databaseDown(): boolean {
    return this.#dbDown;
  }

  /** Bytes in the journal (0 without one). */
  get journalBytes(): number {
    return this.#o.journal?.journal.bytes ?? 0;
  }

  /** True when a new row would be refused: the queue is at its bound, or the database is down and the journal full. */
  get full(): boolean {
    return this.#rows >= this.#o.maxRows || this.#journalFull(1);
  }

  /** Holds a place for one row of `bytes`, or throws (queue full, closing, journal_full). */
  reserve(bytes: number): Reservation<T> {
    if (this.#closing) throw this.#o.refuse('closing', this.#rows);
    if (this.#o.whenJournalFull === 'reject' && this.#journalFull(bytes)) {
      throw svcError('journal_full', undefined, { journal_bytes: this.journalBytes }, { 'Retry-After': '5' });
    }
    if (this.#rows + 1 > this.#o.maxRows || (this.#bytes + bytes > this.#o.maxBytes && this.#rows > 0)) {
      throw this.#o.refuse('queue_full', this.#rows);
    }
    this.#rows += 1;
    this.#bytes += bytes;
    let done = false;
    return {
      commit: (row) => {
        if (done) return Promise.reject(new Error('reservation already used'));
        done = true;
        return new Promise<WriteResult>((resolve, reject) => {
          this.#queue.push({ row, bytes, resolve, reject });
          this.#schedule();
        });
      },
      release: () => {
        if (done) return;
        done = true;
        this.#settle(1, bytes);
      },
    };
  }

  /** reserve() and commit() at once. */
  write(row: T): Promise<WriteResult> {
    return this.reserve(this.#o.sizeOf(row)).commit(row);
  }

  /**
   * Stops taking rows, makes every queued one durable, and stops the replayer (the journal keeps what is left).
   * Places already reserved are waited for too: their callers commit them (or release them) shortly.
   */
  async drain(timeoutMs = 25_000): Promise<void> {
    this.#closing = true;
    const deadline = Date.now() + timeoutMs;
    while (this.#rows > 0) {
      if (Date.now() > deadline) {
        this.#o.log.error({ writer: this.#o.name, lost_rows: this.#rows }, 'writer drain gave up: rows could be neither committed nor journaled');
        for (const e of this.#queue.splice(0)) e.reject(svcError('service_unavailable', 'The server stopped before the write was durable.'));
        break;
      }
      this.#retryAt = Math.min(this.#retryAt, Date.now() + 200);
      this.#pump();
      await new Promise<void>((resolve) => {
        this.#idle.push(resolve);
        setTimeout(resolve, 50).unref();
      });
    }
    if (this.#timer) clearTimeout(this.#timer);
    await this.#replayer?.running;
    await this.#o.journal?.journal.close();
    this.#metrics.untrack();
  }

  /** Replays the journal now (at start, and once rows went to it); resolves when this pass ends. */
  replay(): Promise<void> {
    this.#kickReplay();
    return this.#replayer?.running ?? Promise.resolve();
  }

  /** While the database is down: the journal refused an append (until a replay frees room), or `bytes` would not fit. */
  #journalFull(bytes: number): boolean {
    const j = this.#o.journal?.journal;
    return j !== undefined && this.#dbDown && (this.#journalRefused || !j.fits(bytes + 8));
  }

  #schedule(): void {
    if (this.#queue.length >= this.#o.batchSize) {
      this.#pump();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, this.#o.flushMs);
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
    while (this.#running < (this.#o.concurrency ?? 1) && this.#queue.length > 0) {
      const batch = this.#take();
      this.#running += 1;
      void this.#run(batch).finally(() => {
        this.#running -= 1;
        for (const wake of this.#idle.splice(0)) wake();
        if (this.#queue.length >= this.#o.batchSize || (this.#queue.length > 0 && !this.#timer)) this.#pump();
      });
    }
  }

  /**
   * The next batch. What waits is shared between the free slots, so that callers who wait for their rows (and send
   * the next ones once answered) fall into groups out of phase: one group's rows are prepared and sent while
   * another's commit, instead of every stage waiting for one big batch (measured: about a fifth more events/s on
   * the ingest bench at 32 connections).
   */
  #take(): Entry<T>[] {
    const limit = this.#o.batchBytes ?? Infinity;
    const free = Math.max(1, (this.#o.concurrency ?? 1) - this.#running);
    const most = Math.min(this.#o.batchSize, Math.ceil(this.#queue.length / free));
    let n = 0;
    let bytes = 0;
    while (n < this.#queue.length && n < most && (n === 0 || bytes + this.#queue[n].bytes <= limit)) bytes += this.#queue[n++].bytes;
    return this.#queue.splice(0, n);
  }

  async #run(batch: Entry<T>[]): Promise<void> {
    if (this.#dbDown && this.#o.journal) return this.#toJournal(batch);
    let results: Array<string | null>;
    const startedAt = performance.now();
    try {
      results = await this.#commitSplitting(batch.map((e) => e.row));
    } catch (err) {
      if (this.#o.journal) {
        if (!this.#dbDown) this.#o.log.warn({ err, writer: this.#o.name }, 'database unreachable: writing to the local journal until it is back');
        this.#dbDown = true;
        this.#kickReplay();
        return this.#toJournal(batch);
      }
      this.#retryLater(batch, err);
      return;
    }
    this.#backoffMs = 0;
    this.stats.batches += 1;
    this.#metrics.batchTime.observe((performance.now() - startedAt) / 1000);
    batch.forEach((e, i) => {
      const reason = results[i];
      if (reason === null) {
        this.stats.committed += 1;
        e.resolve({ status: 'committed' });
      } else {
        this.stats.rejected += 1;
        e.resolve({ status: 'rejected', reason });
      }
    });
    this.#settleEntries(batch);
  }

  /**
   * Commits the rows, splitting on a data error until the bad row is alone. Returns, per row, null (committed) or
   * the reason it was refused; throws a transient error as it is (rows already committed by then are repeated
   * by whoever retries, which commit tolerates).
   */
  async #commitSplitting(rows: T[]): Promise<Array<string | null>> {
    try {
      const out: Array<string | null> = rows.map(() => null);
      for (const r of (await this.#o.commit(rows)) ?? []) out[r.index] = r.reason;
      return out;
    } catch (err) {
      if (this.#o.isTransient?.(err)) throw err;
      if (rows.length === 1) {
        this.#o.log.error({ err, writer: this.#o.name }, 'writer refused a row the database will not take');
        return [failureReason(err)];
      }
      const half = Math.ceil(rows.length / 2);
      return [...(await this.#commitSplitting(rows.slice(0, half))), ...(await this.#commitSplitting(rows.slice(half)))];
    }
  }

  async #toJournal(batch: Entry<T>[]): Promise<void> {
    const { journal, codec } = this.#o.journal as NonNullable<DurableWriterOptions<T>['journal']>;
    try {
      await journal.append(batch.map((e) => codec.encode(e.row)));
    } catch (err) {
      if (isSvcError(err) && err.code === 'journal_full') this.#journalRefused = true;
      if (this.#o.whenJournalFull === 'hold') {
        this.#retryLater(batch, err);
        return;
      }
      if (!isSvcError(err)) this.#o.log.error({ err, writer: this.#o.name }, 'the local journal could not be written');
      const refusal = isSvcError(err) ? err : svcError('journal_full', 'The local journal could not be written; retry shortly.', {}, { 'Retry-After': '5' });
      for (const e of batch) e.reject(refusal);
      this.#settleEntries(batch);
      return;
    }
    this.stats.journaled += batch.length;
    for (const e of batch) e.resolve({ status: 'journaled' });
    this.#settleEntries(batch);
    this.#kickReplay();
  }

  #retryLater(batch: Entry<T>[], err: unknown): void {
    this.stats.retries += 1;
    this.#backoffMs = nextBackoff(this.#backoffMs);
    this.#retryAt = Date.now() + jitter(this.#backoffMs);
    this.#queue.unshift(...batch);
    this.#o.log.warn({ err, writer: this.#o.name, rows: batch.length, retry_in_ms: this.#backoffMs }, 'write failed; retrying');
  }

  #kickReplay(): void {
    this.#replayer?.kick();
  }

  #settleEntries(batch: Entry<T>[]): void {
    this.#settle(batch.length, batch.reduce((n, e) => n + e.bytes, 0));
  }

  #settle(rows: number, bytes: number): void {
    this.#rows -= rows;
    this.#bytes -= bytes;
  }
}
