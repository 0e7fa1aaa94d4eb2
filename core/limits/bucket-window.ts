/**
 * A sliding window of admitted calls counted in fixed buckets (the memory store's; the Redis store keeps the same
 * shape in a hash, redis-limit-store.ts): a call counts in the bucket of its time, and a bucket leaves the window
 * once `buckets` newer ones have begun. So a call counts for between (buckets - 1) and `buckets` bucket lengths
 * (the minute: 59 to 60 s; the day: 23 h 59 min to 24 h), memory stays bounded by the number of buckets whatever
 * the rate, and each call costs O(1) (the running total is kept; old buckets are subtracted as they leave).
 *
 * A clock that steps back (a node's clock corrected, a Redis failover to a host whose clock is behind) never
 * uncounts anything: calls then count in the newest bucket seen.
 */
export interface WindowShape {
  bucketMs: number;
  buckets: number;
}

export class BucketWindow {
  readonly #shape: WindowShape;
  readonly #counts = new Map<number, number>();
  /** The oldest bucket still counted, and the newest seen. */
  #oldest = -Infinity;
  #newest = -Infinity;
  #total = 0;

  constructor(shape: WindowShape) {
    this.#shape = shape;
  }

  #bucket(now: number): number {
    this.#newest = Math.max(this.#newest, Math.floor(now / this.#shape.bucketMs));
    return this.#newest;
  }

  /** Drops the buckets that left the window at `now`. */
  #trim(now: number): number {
    const cur = this.#bucket(now);
    const low = cur - this.#shape.buckets + 1;
    if (this.#oldest >= low) return cur;
    if (this.#total === 0 || low - this.#oldest >= this.#shape.buckets) {
      this.#counts.clear();
      this.#total = 0;
    } else {
      for (let b = this.#oldest; b < low; b++) {
        this.#total -= this.#counts.get(b) ?? 0;
        this.#counts.delete(b);
      }
    }
    this.#oldest = low;
    return cur;
  }

  /** Calls counted at `now`. */
  count(now: number): number {
    this.#trim(now);
    return this.#total;
  }

  add(now: number): void {
    const cur = this.#trim(now);
    this.#counts.set(cur, (this.#counts.get(cur) ?? 0) + 1);
    this.#total += 1;
  }

  /** Milliseconds from `now` until the oldest counted call leaves (a whole window when none is counted). */
  retryAfterMs(now: number): number {
    const cur = this.#trim(now);
    for (let b = this.#oldest; b <= cur; b++) {
      if ((this.#counts.get(b) ?? 0) > 0) return Math.max(1, (b + this.#shape.buckets) * this.#shape.bucketMs - now);
    }
    return this.#shape.buckets * this.#shape.bucketMs;
  }
}
