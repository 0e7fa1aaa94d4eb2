/**
 * One process-wide budget of ingest body bytes held in memory at once, across all requests: the bytes read from
 * the socket and the bytes they decompress to, until the request is answered. Each request takes a lease and adds
 * to it as bytes arrive; when an addition would pass the budget, the request is refused at once with 503
 * `ingest_overloaded` and `Retry-After: 1` (its bytes go back to the budget), so many concurrent decompression
 * bombs, or many large envelopes of a valid (public) DSN key, cannot take more memory than the budget.
 *
 * 503 rather than 429 with X-Sentry-Rate-Limits: this is the node's memory, not the client's quota, and it frees
 * within milliseconds. A rate-limit header would make every SDK that met it stop sending every category for the
 * whole period and report its drops as a rate-limit backoff; a 503 leaves the project's limits out of it (the same
 * choice as ingest_queue_full).
 */
import { svcError } from '../../core/errors.ts';

export const DEFAULT_INFLATE_BUDGET_BYTES = 64 * 1024 * 1024;

export class InflateBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number = DEFAULT_INFLATE_BUDGET_BYTES) {
    this.limit = limit;
  }

  /** Bytes currently held by all leases. */
  get used(): number {
    return this.#used;
  }

  lease(): BudgetLease {
    return new BudgetLease(this);
  }

  /** Takes n bytes, or returns false (and takes nothing) when they do not fit. */
  take(n: number): boolean {
    if (this.#used + n > this.limit) return false;
    this.#used += n;
    return true;
  }

  give(n: number): void {
    this.#used = Math.max(0, this.#used - n);
  }
}

/** One request's share of the budget; release() returns all of it (call it once the request is answered). */
export class BudgetLease {
  #budget: InflateBudget;
  #held = 0;

  constructor(budget: InflateBudget) {
    this.#budget = budget;
  }

  get held(): number {
    return this.#held;
  }

  /** Adds n bytes to this request's share; past the budget, releases the share and throws ingest_overloaded. */
  add(n: number): void {
    if (this.#budget.take(n)) {
      this.#held += n;
      return;
    }
    this.release();
    throw svcError('ingest_overloaded', undefined, { budget_bytes: this.#budget.limit }, { 'Retry-After': '1' });
  }

  /** Gives back n bytes this request no longer holds (a buffer it dropped). */
  drop(n: number): void {
    const k = Math.min(n, this.#held);
    this.#held -= k;
    this.#budget.give(k);
  }

  release(): void {
    this.drop(this.#held);
  }
}
