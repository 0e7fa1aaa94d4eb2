/**
 * One setImmediate for the limit batchers of a node: the reserves and settles queued while the event loop handles
 * one round of I/O are flushed in the same callback, so their scripts are issued in the same tick and the Redis
 * client (auto-pipelining) can send them in one write. A settle is never held back for a later round: a client
 * that waits for its answer before its next call must find that call's usage settled when the next one reserves.
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
