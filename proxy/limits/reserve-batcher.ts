/**
 * Reserves in batches: reservations asked for while the event loop handles one round of I/O go to the limit store
 * together (LimitStore.reserveMany: on Redis one script per team and month, checked in order, each call seeing the
 * ones before it), flushed at the end of the round together with the settles (turn-flush.ts). Under load many calls
 * share one reserve round trip; an idle gateway waits for nothing but the end of the current I/O callbacks.
 */
import { TurnBatch, TurnFlush } from './turn-flush.ts';
import type { Amount, LimitStore, LimitSubject, ReserveResult } from '../../core/limits/limit-store.ts';

const MAX_BATCH = 128;

interface Queued {
  subject: LimitSubject;
  estimate: Amount;
  resolve: (r: ReserveResult) => void;
  reject: (err: unknown) => void;
}

export class ReserveBatcher {
  #store: LimitStore;
  #batch: TurnBatch<Queued>;

  constructor(store: LimitStore, turn: TurnFlush = new TurnFlush()) {
    this.#store = store;
    this.#batch = new TurnBatch(turn, MAX_BATCH, (batch) => this.#send(batch));
  }

  reserve(subject: LimitSubject, estimate: Amount): Promise<ReserveResult> {
    return new Promise<ReserveResult>((resolve, reject) => this.#batch.add({ subject, estimate, resolve, reject }));
  }

  #send(batch: Queued[]): void {
    this.#store.reserveMany(batch).then(
      (results) => {
        for (let i = 0; i < batch.length; i++) batch[i].resolve(results[i]);
      },
      (err: unknown) => {
        for (const q of batch) q.reject(err);
      },
    );
  }
}
