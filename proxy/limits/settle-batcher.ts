/**
 * Settles calls in batches: settlements queued while the event loop handles one round of I/O go to the limit store
 * together (LimitStore.settleMany: on Redis one script per team and month), flushed at the end of that round with
 * the reserves of the round (turn-flush.ts), so under load many calls share one settle script. Settling is off the
 * request path: the answer has been sent already; the totals feed the budget alerts.
 */
import type { Logger } from '../../core/logger.ts';
import { TurnBatch, TurnFlush } from './turn-flush.ts';
import type { LimitStore, Settlement, Totals } from '../../core/limits/limit-store.ts';

const MAX_BATCH = 256;

interface Queued {
  item: Settlement;
  then: (totals: Totals) => void;
}

export class SettleBatcher {
  #store: LimitStore;
  #log: Logger;
  #batch: TurnBatch<Queued>;
  #inFlight = new Set<Promise<void>>();

  constructor(store: LimitStore, log: Logger, turn: TurnFlush = new TurnFlush()) {
    this.#store = store;
    this.#log = log;
    this.#batch = new TurnBatch(turn, MAX_BATCH, (batch) => this.#send(batch));
  }

  /** Queues a settlement; `then` gets the totals after it (not called when the store fails: the error is logged). */
  settle(item: Settlement, then: (totals: Totals) => void): void {
    this.#batch.add({ item, then });
  }

  #send(batch: Queued[]): void {
    const p = this.#store.settleMany(batch.map((q) => q.item)).then(
      (totals) => {
        for (let i = 0; i < batch.length; i++) batch[i].then(totals[i]);
      },
      (err: unknown) => this.#log.warn({ err, calls: batch.length }, 'usage could not be settled in the limit counters; the reservations expire and the next seed catches up'),
    ).finally(() => this.#inFlight.delete(p));
    this.#inFlight.add(p);
  }

  /** Sends what is queued and waits for every batch in flight (shutdown, tests). */
  async drain(): Promise<void> {
    this.#batch.flush();
    await Promise.allSettled([...this.#inFlight]);
  }
}
