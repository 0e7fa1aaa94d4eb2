/**
 * The time every node agrees on, without a round trip per request: the node's clock corrected by its offset from
 * the counters' clock (Redis TIME with REDIS_URL), measured at start and then every minute. Budgets use it to name
 * the calendar month (UTC) a call belongs to, so that two nodes whose clocks disagree by seconds still put a call
 * made at 23:59:59 on the last day of a month in the same month. (The sliding windows do not need it: their Lua
 * scripts read Redis time themselves.) The offset is measured as Redis time minus the midpoint of the round trip.
 */
import type { Clock } from '../clock.ts';
import type { Counters } from '../counters/counters.ts';

export const RESYNC_MS = 60_000;

export class ServerTime {
  #clock: Clock;
  #counters: Pick<Counters, 'time'>;
  #offset = 0;
  #timer: NodeJS.Timeout | undefined;
  /** When the offset was last measured (local ms), or 0 when never. */
  measuredAt = 0;

  constructor(clock: Clock, counters: Pick<Counters, 'time'>) {
    this.#clock = clock;
    this.#counters = counters;
  }

  /** Measures now and then every `everyMs`; a failed measurement keeps the last offset. */
  async start(everyMs = RESYNC_MS): Promise<void> {
    await this.sync();
    this.#timer = setInterval(() => void this.sync(), everyMs);
    this.#timer.unref();
  }

  async sync(): Promise<boolean> {
    try {
      const before = this.#clock.now();
      const shared = await this.#counters.time();
      const after = this.#clock.now();
      this.#offset = shared - (before + after) / 2;
      this.measuredAt = after;
      return true;
    } catch {
      return false;
    }
  }

  /** Milliseconds the counters' clock is ahead of this node's. */
  get offsetMs(): number {
    return this.#offset;
  }

  now(): number {
    return Math.round(this.#clock.now() + this.#offset);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
