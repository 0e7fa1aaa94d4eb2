/**
 * The quota windows that proxy nodes saw in the rate-limit headers of an account's latest responses, kept in the
 * shared counters (`quota-headers:<account>`, 6 h) for the quota poller: the fallback when a plan has no usage
 * endpoint, or when it answers 403 or an unexpected shape.
 */
import type { Counters } from '../../counters/counters.ts';
import type { QuotaWindow } from './quota-window.ts';

export interface HeaderSnapshot {
  /** Unix ms of the response the windows came from. */
  at: number;
  windows: QuotaWindow[];
}

const KEEP_MS = 6 * 3_600_000;
const key = (accountId: string) => `quota-headers:${accountId}`;

export async function saveHeaderSnapshot(counters: Counters, accountId: string, snap: HeaderSnapshot): Promise<void> {
  await counters.setValue(key(accountId), JSON.stringify(snap), KEEP_MS);
}

/** The latest snapshot, without windows that have reset since (their usage is unknown now). */
export async function readHeaderSnapshot(counters: Counters, accountId: string, now: number): Promise<HeaderSnapshot | undefined> {
  const raw = await counters.getValue(key(accountId));
  if (!raw) return undefined;
  try {
    const snap = JSON.parse(raw) as HeaderSnapshot;
    if (typeof snap.at !== 'number' || !Array.isArray(snap.windows)) return undefined;
    return { at: snap.at, windows: snap.windows.filter((w) => w.resetsAt === null || w.resetsAt > now) };
  } catch {
    return undefined;
  }
}
