/**
 * Replays a writer's journal into the database: oldest segment first, in batches through the writer's own commit
 * (which splits a batch refused for one row's content), deleting each segment once all its rows are committed.
 * A pass runs until the journal is empty or the writer closes; while the database stays unreachable it retries with
 * backoff (100 ms to 5 s). A torn last record (a crash during an append) was never acknowledged and is skipped, as is
 * a record that no longer decodes (logged). Rows may be replayed twice (a crash between commit and deletion): the
 * writer's commit is idempotent.
 */
import type { Logger } from '../logger.ts';
import type { RowCodec } from './durable-writer.ts';
import { jitter, nextBackoff } from './write-failure.ts';
import type { WriteJournal } from './write-journal.ts';

export interface ReplayTarget<T> {
  name: string;
  log: Logger;
  journal: WriteJournal;
  codec: RowCodec<T>;
  batchSize: number;
  /** Commits rows; per row null (committed) or the reason it was refused; throws when the database fails. */
  commit(rows: T[]): Promise<Array<string | null>>;
  isRetryable(err: unknown): boolean;
  closing(): boolean;
  /** A row refused for its content, or a record that does not decode (row undefined). */
  onRejected(row: T | undefined, reason: string): void;
  /** A segment's rows are all committed and the segment is deleted. */
  onSegmentReplayed(rows: number): void;
}

export class JournalReplayer<T> {
  #t: ReplayTarget<T>;
  #running: Promise<void> | undefined;

  constructor(target: ReplayTarget<T>) {
    this.#t = target;
  }

  /** The pass under way, if any. */
  get running(): Promise<void> | undefined {
    return this.#running;
  }

  /** Starts a pass unless one runs. */
  kick(): void {
    if (this.#running) return;
    this.#running = this.#replayAll()
      .catch((err: unknown) => {
        this.#t.log.error({ err, writer: this.#t.name }, 'journal replay stopped; it resumes with the next journaled batch or start');
      })
      .finally(() => {
        this.#running = undefined;
      });
  }

  async #replayAll(): Promise<void> {
    const { journal } = this.#t;
    let backoff = 0;
    while (!journal.empty && !this.#t.closing()) {
      try {
        await journal.seal();
        for (const seq of journal.sealed()) {
          if (this.#t.closing()) return;
          await this.#replaySegment(seq);
          backoff = 0;
        }
      } catch (err) {
        // Retryable: the database is still down. Anything else (the disk) is logged and retried the same way.
        if (!this.#t.isRetryable(err)) this.#t.log.error({ err, writer: this.#t.name }, 'journal replay failed');
        backoff = nextBackoff(backoff);
        await new Promise((r) => setTimeout(r, jitter(backoff)).unref());
      }
    }
  }

  async #replaySegment(seq: number): Promise<void> {
    const { journal, log, name } = this.#t;
    const segment = await journal.read(seq);
    if (segment.tornBytes > 0) {
      log.warn({ writer: name, segment: seq, torn_bytes: segment.tornBytes }, 'journal segment ends in a torn record (a crash during an append); it was never acknowledged and is skipped');
    }
    const rows = this.#decode(seq, segment.records);
    for (let i = 0; i < rows.length; i += this.#t.batchSize) {
      const chunk = rows.slice(i, i + this.#t.batchSize);
      (await this.#t.commit(chunk)).forEach((reason, j) => {
        if (reason !== null) this.#t.onRejected(chunk[j], reason);
      });
    }
    await journal.remove(seq);
    this.#t.onSegmentReplayed(segment.records.length);
    log.info({ writer: name, segment: seq, rows: segment.records.length }, 'journal segment replayed');
  }

  #decode(seq: number, records: Buffer[]): T[] {
    const rows: T[] = [];
    for (const r of records) {
      try {
        rows.push(this.#t.codec.decode(r));
      } catch (err) {
        this.#t.log.error({ err, writer: this.#t.name, segment: seq }, 'journal record could not be decoded; skipped');
        this.#t.onRejected(undefined, 'undecodable journal record');
      }
    }
    return rows;
  }
}
