/**
 * One setImmediate for the limit batchers of a node (each a TurnBatch): the reserves and settles queued while the
 * event loop handles one round of I/O are flushed in the same callback, so their scripts are issued in the same
 * tick and the Redis client (auto-pipelining) can send them in one write. A settle is never held back for a later
 * round: a client that waits for its answer before its next call must find that call's usage settled when the next
 * one reserves.
 */
export class TurnFlush {
  #pending = new Set<() => void>();
  #immediate: NodeJS.Immediate | undefined;
  readonly #run = (): void => {
    this.#immediate = undefined;
    const flushes = [...this.#pending];
    this.#pending.clear();
    for (const flush of flushes) flush();
  };

  /** Runs `flush` at the end of this round of I/O, with the others scheduled in it (once however often asked). */
  schedule(flush: () => void): void {
    this.#pending.add(flush);
    this.#immediate ??= setImmediate(this.#run);
  }
}

/**
 * Items queued during one round of I/O, handed to `send` together at the end of it (through the shared TurnFlush),
 * or at once when `max` are waiting.
 */
export class TurnBatch<T> {
  #items: T[] = [];
  #turn: TurnFlush;
  #max: number;
  #send: (batch: T[]) => void;
  readonly #flushNow = (): void => this.flush();

  constructor(turn: TurnFlush, max: number, send: (batch: T[]) => void) {
    this.#turn = turn;
    this.#max = max;
    this.#send = send;
  }

  add(item: T): void {
    this.#items.push(item);
    if (this.#items.length >= this.#max) this.flush();
    else this.#turn.schedule(this.#flushNow);
  }

  /** Sends what is waiting now. */
  flush(): void {
    if (this.#items.length === 0) return;
    const batch = this.#items;
    this.#items = [];
    this.#send(batch);
  }
}
