/**
 * Processing of events already durable in ingest_inbox (acknowledged): the node hands the events it just committed
 * there (or claimed from a crashed node's leftovers) to this in-memory backlog, which writes them in batches of up
 * to `batchSize` with the existing batch write (write-batch.ts: prepare in workers, store, outcome counts), whose
 * transaction also deletes their inbox rows.
 *
 * - A batch refused for one event's content is split until that event is alone: its inbox row is deleted and
 *   onRejected counts it (the client was already answered 200).
 * - Any other failure (database unreachable, a missing table) keeps the batch and retries with backoff: the rows
 *   stay in the inbox meanwhile, so a crash loses nothing (another node claims them once their lease runs out).
 * - `pending` (backlog plus batches being written) is what the writer counts against its queue bound.
 */
import type { Logger } from '../../core/logger.ts';
import { failureReason, isRetryable, jitter, nextBackoff } from '../../core/writes/write-failure.ts';
import type { OutcomeRow } from '../outcome-counter.ts';
import type { QueuedEvent } from './queued-event.ts';

export interface InboxItem {
  id: string;
  event: QueuedEvent;
}

/** Writes events, outcome counts and deletes the inbox rows in one transaction; returns events left out. */
export type ProcessBatch = (events: QueuedEvent[], outcomes: OutcomeRow[], inboxIds: readonly string[]) => Promise<ReadonlyArray<{ index: number; reason: string }> | void>;

export interface ProcessorOptions {
  log: Logger;
  write: ProcessBatch;
  batchSize: number;
  flushMs: number;
  concurrency: number;
  takeOutcomes(): OutcomeRow[];
  putBackOutcomes(rows: OutcomeRow[]): void;
  onRejected(event: QueuedEvent, reason: string): void;
}

export class EventProcessor {
  #o: ProcessorOptions;
  #backlog: InboxItem[] = [];
  #ids = new Set<string>();
  #bytes = 0;
  #running = 0;
  #timer: NodeJS.Timeout | undefined;
  #retryAt = 0;
  #backoffMs = 0;
  #idle: Array<() => void> = [];
  readonly stats = { processed: 0, rejected: 0, batches: 0, retries: 0 };

  constructor(options: ProcessorOptions) {
    this.#o = options;
  }

  /** Events acknowledged and not yet processed (backlog and batches being written). */
  get pending(): number {
    return this.#ids.size;
  }

  get batchSize(): number {
    return this.#o.batchSize;
  }

  get pendingBytes(): number {
    return this.#bytes;
  }

  /** Whether this node holds the inbox row (so a sweep need not claim it). */
  holds(id: string): boolean {
    return this.#ids.has(id);
  }

  add(items: readonly InboxItem[]): void {
    for (const item of items) {
      if (this.#ids.has(item.id)) continue;
      this.#ids.add(item.id);
      this.#bytes += heldBytes(item.event);
      this.#backlog.push(item);
    }
    if (this.#backlog.length >= this.#o.batchSize) this.#pump();
    else this.#timer ??= setTimeout(() => this.#pump(), this.#o.flushMs);
  }

  /** Resolves once nothing is pending, or false at the deadline. */
  async settle(deadline: number): Promise<boolean> {
    while (this.pending > 0) {
      if (Date.now() > deadline) return false;
      this.#retryAt = Math.min(this.#retryAt, Date.now() + 200);
      this.#pump();
      await new Promise<void>((resolve) => {
        this.#idle.push(resolve);
        setTimeout(resolve, 50).unref();
      });
    }
    return true;
  }

  #pump(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const wait = this.#retryAt - Date.now();
    if (wait > 0) {
      this.#timer = setTimeout(() => this.#pump(), wait);
      return;
    }
    while (this.#running < this.#o.concurrency && this.#backlog.length > 0) {
      const batch = this.#backlog.splice(0, this.#o.batchSize);
      this.#running += 1;
      void this.#run(batch).finally(() => {
        this.#running -= 1;
        for (const wake of this.#idle.splice(0)) wake();
        if (this.#backlog.length > 0) this.#pump();
      });
    }
  }

  async #run(batch: InboxItem[]): Promise<void> {
    try {
      await this.#processSplitting(batch);
    } catch (err) {
      this.stats.retries += 1;
      this.#backoffMs = nextBackoff(this.#backoffMs);
      this.#retryAt = Date.now() + jitter(this.#backoffMs);
      this.#backlog.unshift(...batch);
      this.#o.log.warn({ err, events: batch.length, retry_in_ms: this.#backoffMs }, 'acknowledged events could not be processed yet; retrying (they are kept in the inbox)');
      return;
    }
    this.#backoffMs = 0;
    this.stats.batches += 1;
    for (const item of batch) {
      if (this.#ids.delete(item.id)) this.#bytes -= heldBytes(item.event);
    }
  }

  async #processSplitting(items: InboxItem[]): Promise<void> {
    const outcomes = this.#o.takeOutcomes();
    try {
      const rejected = (await this.#o.write(items.map((i) => i.event), outcomes, items.map((i) => i.id))) ?? [];
      for (const r of rejected) this.#reject(items[r.index].event, r.reason);
      this.stats.processed += items.length - rejected.length;
      return;
    } catch (err) {
      this.#o.putBackOutcomes(outcomes);
      if (isRetryable(err)) throw err;
      if (items.length === 1) {
        // Refused for its content: it leaves the inbox (retrying would not change the answer).
        await this.#o.write([], [], [items[0].id]);
        this.#reject(items[0].event, failureReason(err));
        return;
      }
      const half = Math.ceil(items.length / 2);
      await this.#processSplitting(items.slice(0, half));
      await this.#processSplitting(items.slice(half));
    }
  }

  #reject(event: QueuedEvent, reason: string): void {
    this.stats.rejected += 1;
    this.#o.log.error({ event_id: event.eventId, project: event.project.id, reason }, 'an acknowledged event could not be stored; it is counted invalid');
    this.#o.onRejected(event, reason);
  }
}

/** What an event holds in memory while it waits: its bytes, or (once in the inbox) its prepared row instead. */
function heldBytes(e: QueuedEvent): number {
  return e.payload.length + (e.prepared ? e.prepared.row.length + e.prepared.document.length : 0);
}
