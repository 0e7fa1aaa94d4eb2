/**
 * The forecast of a quota window: the share expected to be used when the window resets, extrapolating the recent
 * rate. The rate comes from the oldest reading of the same window period (same reset time) within the last 3 hours;
 * without one, from the window's start (reset time minus its length) when its length is known. Null when neither is
 * possible. A forecast above 1 means the window will run out before it resets at this pace.
 */
import type { QuotaWindow } from './quota-window.ts';

export interface QuotaSample {
  used: number;
  resetsAt: number | null;
  /** Unix ms. */
  at: number;
}

export interface Forecast {
  /** Share of the window used per hour, recently. */
  ratePerHour: number | null;
  /** Share expected to be used at the reset. */
  atReset: number | null;
}

const HOUR = 3_600_000;
const LOOKBACK = 3 * HOUR;
const SAME_PERIOD_MS = 120_000;
const MIN_SPAN = 60_000;

const round = (x: number) => Math.round(x * 10_000) / 10_000;

export function forecastWindow(w: QuotaWindow, samples: readonly QuotaSample[], now: number): Forecast {
  let rate: number | null = null;
  const samePeriod = samples.filter((s) =>
    s.at >= now - LOOKBACK && s.at <= now - MIN_SPAN
    && (w.resetsAt === null ? s.resetsAt === null : s.resetsAt !== null && Math.abs(s.resetsAt - w.resetsAt) <= SAME_PERIOD_MS));
  if (samePeriod.length > 0) {
    const oldest = samePeriod.reduce((a, b) => (b.at < a.at ? b : a));
    const r = (w.used - oldest.used) / ((now - oldest.at) / HOUR);
    if (r >= 0) rate = r;
  }
  if (rate === null && w.resetsAt !== null && w.windowSeconds !== null) {
    const elapsed = now - (w.resetsAt - w.windowSeconds * 1000);
    if (elapsed >= MIN_SPAN) rate = w.used / (elapsed / HOUR);
  }
  if (rate === null) return { ratePerHour: null, atReset: null };
  const atReset = w.resetsAt === null ? null : w.used + rate * (Math.max(0, w.resetsAt - now) / HOUR);
  return { ratePerHour: round(rate), atReset: atReset === null ? null : round(atReset) };
}
