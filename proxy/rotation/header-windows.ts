/**
 * Quota windows seen in the rate-limit headers of a plan's answers: kept in the shared counters for the quota
 * poller (at most every 15 s per account and node), and acted on at once when a window has under 2 % left (the read
 * is stored like a poll, which pauses the account or its family on every node), at most once a minute per account.
 */
import type { AppContext } from '../../core/context.ts';
import type { RateLimitHeaderFormat } from '../../core/ai/provider-profiles.ts';
import { applyQuotaRead } from '../../core/ai/subscriptions/apply-quota-read.ts';
import { saveHeaderSnapshot } from '../../core/ai/subscriptions/header-snapshots.ts';
import { PAUSE_AT_USED } from '../../core/ai/subscriptions/quota-window.ts';
import { quotaResetFromHeaders, windowsFromHeaders, type HeaderBag } from '../../core/ai/subscriptions/rate-limit-headers.ts';
import type { RotationData } from './rotation-data.ts';

const SNAPSHOT_EVERY_MS = 15_000;
const ACT_EVERY_MS = 60_000;

export class HeaderWindows {
  #ctx: AppContext;
  #data: RotationData;
  #snapshotAt = new Map<string, number>();
  #actedAt = new Map<string, number>();

  constructor(ctx: AppContext, data: RotationData) {
    this.#ctx = ctx;
    this.#data = data;
  }

  async seen(accountId: string, format: RateLimitHeaderFormat, headers: HeaderBag, families: Record<string, string>): Promise<void> {
    const now = this.#ctx.clock.now();
    const windows = windowsFromHeaders(format, headers, families, now);
    if (windows.length === 0) return;
    const low = windows.filter((w) => w.used >= PAUSE_AT_USED && (w.resetsAt === null || w.resetsAt > now));
    const due = now - (this.#snapshotAt.get(accountId) ?? -Infinity) >= SNAPSHOT_EVERY_MS;
    if (due || low.length > 0) {
      if (this.#snapshotAt.size > 10_000) this.#snapshotAt.clear();
      this.#snapshotAt.set(accountId, now);
      await saveHeaderSnapshot(this.#ctx.counters, accountId, { at: now, windows });
    }
    if (low.length === 0 || now - (this.#actedAt.get(accountId) ?? -Infinity) < ACT_EVERY_MS) return;
    const pauses = (await this.#data.pauses()).get(accountId) ?? [];
    const covered = low.every((w) => pauses.some((p) => p.until > now && (p.family === '' || p.family === (w.family ?? ''))));
    if (covered) return;
    this.#actedAt.set(accountId, now);
    await applyQuotaRead(this.#ctx, accountId, { windows, source: 'headers', error: null });
  }

  /** When a 429 may be retried, from the plan's headers; undefined when they do not say. */
  resetAfter429(format: RateLimitHeaderFormat | null, headers: HeaderBag): number | undefined {
    return quotaResetFromHeaders(format, headers, this.#ctx.clock.now());
  }
}
