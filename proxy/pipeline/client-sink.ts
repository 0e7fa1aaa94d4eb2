/**
 * The client side of an answer once the gateway commits to it: the raw Node response (the route hijacked the
 * fastify reply), with backpressure (a write that fills the socket buffer waits for `drain`), the time of the
 * first byte, and the client going away (which aborts the upstream call through `signal`).
 *
 * Writes are corked until the end of the event-loop turn (setImmediate): the head, the chunks that arrived in one
 * read of the upstream socket and the chunked-encoding terminator then leave in one `writev` instead of one
 * system call each (Node's own cork only lasts until the next tick, before the upstream body's 'end' event).
 * Socket writes were the largest cost of a streamed call.
 *
 * The last bytes of an answer can be held back (`hold()` … `release()`): everything written after `hold()`,
 * the end included, waits until `release()`, so the client cannot see its answer complete before the call's usage
 * record is durable (issue 11 point 2; run-call.ts).
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export class ClientSink {
  readonly res: ServerResponse;
  readonly controller = new AbortController();
  /** performance.now() of the first body byte written, if any. */
  firstByteAt: number | undefined;
  #headSent = false;
  #corked = false;
  /** What was written after hold(), and the end when it was asked for. */
  #held: (string | Uint8Array)[] | undefined;
  #endHeld = false;
  readonly #uncork = (): void => {
    if (!this.#corked) return;
    this.#corked = false;
    this.res.socket?.uncork();
  };

  constructor(res: ServerResponse) {
    this.res = res;
    res.on('close', () => {
      if (!res.writableFinished) this.controller.abort(new Error('client disconnected'));
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The client closed the connection before the answer was complete. */
  get gone(): boolean {
    return this.controller.signal.aborted;
  }

  get headSent(): boolean {
    return this.#headSent;
  }

  head(status: number, headers: Record<string, string | string[]>): void {
    if (this.#headSent) return;
    this.#headSent = true;
    this.res.writeHead(status, headers);
  }

  /**
   * A server that stops accepting closes the idle connections at that moment only: one whose answer was still
   * going (a stream, or an end held for the usage record) would stay open, kept alive, after it, and hold the
   * shutdown until the keep-alive timeout. Such a connection is closed once its answer is sent.
   */
  #closeAfterIfStopping(): void {
    const socket = this.res.socket as (Socket & { server?: { listening?: boolean } }) | null;
    if (socket?.server?.listening === false) this.res.once('finish', () => socket.end());
  }

  /** From now on writes and the end wait for release(). */
  hold(): void {
    this.#held ??= [];
  }

  get holding(): boolean {
    return this.#held !== undefined;
  }

  /** Sends what was held back and ends the answer if its end was asked for. */
  release(): void {
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    for (const c of held) void this.write(c);
    if (this.#endHeld) this.end();
  }

  /** Writes a piece of the body; resolves at once unless the socket buffer is full. */
  write(chunk: string | Uint8Array): Promise<void> | undefined {
    if (this.gone || chunk.length === 0) return undefined;
    if (this.#held !== undefined) {
      this.#held.push(chunk);
      return undefined;
    }
    this.firstByteAt ??= performance.now();
    if (!this.#corked && this.res.socket) {
      this.#corked = true;
      this.res.socket.cork();
      setImmediate(this.#uncork);
    }
    if (this.res.write(chunk)) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  end(chunk?: string | Uint8Array): void {
    if (this.gone) return;
    if (this.#held !== undefined) {
      if (chunk !== undefined && chunk.length > 0) this.#held.push(chunk);
      this.#endHeld = true;
      return;
    }
    if (chunk !== undefined && chunk.length > 0) this.firstByteAt ??= performance.now();
    // end() uncorks the socket fully: our pending uncork must not touch a later answer on the same connection.
    this.#corked = false;
    this.#closeAfterIfStopping();
    if (chunk === undefined) this.res.end();
    else this.res.end(chunk);
  }
}
