/**
 * An upstream answer's body straight from undici's dispatch handler, without a Node stream in between: undici's
 * `request()` wraps each answer in a Readable (with an async resource and an abort listener) that the gateway only
 * ever reads chunk by chunk. Chunks that arrive before the consumer attaches (often in the same socket read as the
 * head) wait in order; a consumer that returns a promise (the client's socket is full) pauses the upstream read
 * until it settles.
 */
import type { Dispatcher } from 'undici';
import { Fifo } from '../../core/fifo.ts';

type OnChunk = (chunk: Buffer) => Promise<void> | undefined;

export class UpstreamBody {
  #controller: Dispatcher.DispatchController;
  /** Chunks waiting for the consumer (a Fifo: Array#shift moves every element left, quadratic in a long queue). */
  #queued = new Fifo<Buffer>();
  #ended = false;
  #error: unknown;
  #onChunk: OnChunk | undefined;
  #waiting: Promise<void> | undefined;
  #resolve: (() => void) | undefined;
  #reject: ((err: unknown) => void) | undefined;
  #started: { resolve: () => void; reject: (err: unknown) => void } | undefined;

  constructor(controller: Dispatcher.DispatchController) {
    this.#controller = controller;
  }

  /** Delivers every chunk to `onChunk` in order; resolves at the end of the body, rejects when it breaks. */
  consume(onChunk: OnChunk): Promise<void> {
    if (this.#onChunk !== undefined) throw new Error('An upstream body can be read once.');
    this.#onChunk = onChunk;
    return new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
      this.#flush();
    });
  }

  /**
   * Resolves once the first chunk (or the end of an empty body) has arrived, without reading it; rejects when the
   * body breaks before. The gateway commits a stream to the client only then, so a connection lost before any byte
   * is a failed attempt that the next account can take over.
   */
  started(): Promise<void> {
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#hasQueued() || this.#ended || this.#onChunk !== undefined) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#started = { resolve, reject };
    });
  }

  /** Stops reading: the upstream request is aborted (unless it is over already). */
  destroy(err?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#controller.abort(err instanceof Error ? err : new Error('upstream body discarded'));
  }

  /** @internal undici's handler → body. */
  push(chunk: Buffer): void {
    if (this.#onChunk === undefined || this.#waiting !== undefined || this.#hasQueued()) {
      this.#queued.push(chunk);
      this.#start();
      return;
    }
    this.#deliver(chunk);
  }

  end(): void {
    this.#ended = true;
    this.#start();
    this.#flush();
  }

  /**
   * The upstream broke. Chunks already received are still delivered, then the consumer gets the error: a stream
   * whose first byte waits for its open row (run-call.ts) keeps what arrived meanwhile.
   */
  fail(err: unknown): void {
    // The first failure is the one the consumer gets (an abort it caused reports back here afterwards).
    this.#error ??= err;
    this.#ended = true;
    this.#started?.reject(this.#error);
    this.#started = undefined;
    this.#flush();
    if (this.#waiting === undefined && !this.#hasQueued()) this.#settle();
  }

  #start(): void {
    this.#started?.resolve();
    this.#started = undefined;
  }

  /** The consumer failed: it gets its own error, and the upstream request is aborted. */
  #stop(err: unknown): void {
    const abort = !this.#ended;
    this.#queued = new Fifo<Buffer>();
    this.fail(err);
    if (abort) this.#controller.abort(err instanceof Error ? err : new Error('upstream body discarded'));
  }

  #deliver(chunk: Buffer): void {
    let wait: Promise<void> | undefined;
    try {
      wait = (this.#onChunk as OnChunk)(chunk);
    } catch (err) {
      this.#stop(err);
      return;
    }
    if (wait === undefined) return;
    this.#waiting = wait;
    this.#controller.pause();
    wait.then(() => {
      this.#waiting = undefined;
      if (!this.#ended) this.#controller.resume();
      this.#flush();
    }, (err: unknown) => {
      this.#waiting = undefined;
      this.#stop(err);
    });
  }

  /** Delivers what is queued while nothing waits; settles once the end is reached. */
  #flush(): void {
    if (this.#onChunk === undefined) return;
    while (this.#waiting === undefined && this.#hasQueued()) {
      const chunk = this.#queued.shift() as Buffer;
      this.#deliver(chunk);
    }
    if (this.#waiting === undefined && !this.#hasQueued() && this.#ended) this.#settle();
  }

  #hasQueued(): boolean {
    return this.#queued.length > 0;
  }

  #settle(): void {
    const resolve = this.#resolve;
    const reject = this.#reject;
    if (resolve === undefined || reject === undefined) return;
    this.#resolve = this.#reject = undefined;
    if (this.#error !== undefined) reject(this.#error);
    else resolve();
  }
}
