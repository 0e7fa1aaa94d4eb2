/**
 * Records when gateway keys are used (gateway_keys.last_used_at) without a write per call: a key's use is noted at
 * most once a minute per node, and the noted uses are written together a few seconds later in one UPDATE over
 * unnest(). A failed write is logged and dropped (the next use notes the key again after the minute); the uses of
 * the last few seconds before a node stops may be lost. last_used_at only moves forward (GREATEST), so nodes can
 * write in any order.
 */
import type { AppContext } from '../../core/context.ts';

const NOTE_EVERY_MS = 60_000;
const FLUSH_AFTER_MS = 5_000;
const NOTED_MAX = 100_000;

export class KeyUseRecorder {
  #ctx: AppContext;
  /** When each key's use was last noted on this node (for the once-a-minute rule). */
  #noted = new Map<string, number>();
  #pending = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** Notes a use of the key; costs a map read on most calls. */
  touch(keyId: string): void {
    const now = this.#ctx.clock.now();
    const last = this.#noted.get(keyId);
    if (last !== undefined && now - last < NOTE_EVERY_MS) return;
    if (this.#noted.size >= NOTED_MAX) this.#noted.clear();
    this.#noted.set(keyId, now);
    this.#pending.set(keyId, now);
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_AFTER_MS).unref();
  }

  /** Writes the noted uses now (also called by the timer). */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size === 0) return;
    const ids = [...this.#pending.keys()];
    const at = [...this.#pending.values()].map((ms) => new Date(ms));
    this.#pending.clear();
    await this.#ctx.db.query(
      `UPDATE gateway_keys k SET last_used_at = GREATEST(k.last_used_at, u.at)
         FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at) WHERE k.id = u.id`,
      [ids, at],
    ).catch((err: unknown) => this.#ctx.log.warn({ err, keys: ids.length }, 'could not record gateway key use'));
  }
}
