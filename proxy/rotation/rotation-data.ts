/**
 * What rotation knows about accounts besides the routing table: quota pauses per model family (account_pauses) and
 * the quota windows (account_quota_windows), each loaded whole into a LookupCache that the control plane and the
 * quota code drop on every change (ACCOUNT_PAUSES_CACHE, ACCOUNT_QUOTA_CACHE), so the hot path never queries.
 */
import type { AppContext } from '../../core/context.ts';
import { LookupCache } from '../../core/cache.ts';
import { readPauses, type Pause } from '../../core/ai/subscriptions/pauses.ts';
import { ACCOUNT_PAUSES_CACHE, ACCOUNT_QUOTA_CACHE } from '../../core/ai/subscriptions/subscription-caches.ts';

export interface WindowUse {
  family: string | null;
  used: number;
  /** Unix ms; null = unknown. */
  resetsAt: number | null;
}

const ALL = 'all';

export class RotationData {
  #ctx: AppContext;
  #pauses: LookupCache<Map<string, Pause[]>>;
  #windows: LookupCache<Map<string, WindowUse[]>>;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#pauses = ctx.caches.register(new LookupCache<Map<string, Pause[]>>(ACCOUNT_PAUSES_CACHE, 30_000));
    this.#windows = ctx.caches.register(new LookupCache<Map<string, WindowUse[]>>(ACCOUNT_QUOTA_CACHE, 30_000));
  }

  /** The pauses when cached, without a promise. */
  cachedPauses(): Map<string, Pause[]> | undefined {
    return this.#pauses.peek(ALL);
  }

  /** The quota windows when cached, without a promise. */
  cachedWindows(): Map<string, WindowUse[]> | undefined {
    return this.#windows.peek(ALL);
  }

  pauses(): Promise<Map<string, Pause[]>> {
    return this.#pauses.get(ALL, async () => {
      const m = new Map<string, Pause[]>();
      for (const p of await readPauses(this.#ctx.db)) m.set(p.accountId, [...(m.get(p.accountId) ?? []), p]);
      return m;
    });
  }

  windows(): Promise<Map<string, WindowUse[]>> {
    return this.#windows.get(ALL, async () => {
      const r = await this.#ctx.db.query<{ account_id: string; family: string | null; used_fraction: number; resets_at: Date | null }>(
        'SELECT account_id, family, used_fraction, resets_at FROM account_quota_windows',
      );
      const m = new Map<string, WindowUse[]>();
      for (const w of r.rows) m.set(w.account_id, [...(m.get(w.account_id) ?? []), { family: w.family, used: w.used_fraction, resetsAt: w.resets_at?.getTime() ?? null }]);
      return m;
    });
  }
}

/** Whether a window or pause of `family` limits `model` (families are names such as `sonnet`, `opus`). */
export function familyLimits(family: string | null, model: string): boolean {
  return family === null || family === '' || model.toLowerCase().includes(family.toLowerCase());
}
