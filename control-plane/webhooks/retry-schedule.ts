/**
 * When a failed delivery is tried again: exponential backoff with jitter. After attempt n fails (n from 1), the next
 * one waits RETRY_DELAYS_MS[n-1] × a random factor in [0.8, 1.2); after MAX_ATTEMPTS the delivery is `failed`.
 * Total span ≈ 1 day 5 hours.
 */
export const RETRY_DELAYS_MS = [10_000, 30_000, 120_000, 600_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 18 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.2;

/** Milliseconds to wait after failed attempt `attempt` (1-based), or null when no attempt is left. */
export function retryDelayMs(attempt: number, maxAttempts = MAX_ATTEMPTS, random: () => number = Math.random): number | null {
  if (attempt >= maxAttempts) return null;
  const base = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1];
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
