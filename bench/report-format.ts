/** Shared figures of the bench reports: medians over rounds, shown with their spread (min–max). */

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : '–');
export const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '–');

/** "median (min–max)". */
export const spread = (xs: number[], fmt: (x: number) => string): string => `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
