/** Numbers always carry units: tokens, $, ms, %. Times are shown in the viewer's zone; UTC is in the tooltip. */
const int = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

export const fmtCount = (n: number, unit: string, plural = `${unit}s`): string => `${int.format(n)} ${n === 1 ? unit : plural}`;
export const fmtTokens = (n: number): string => `${n >= 100_000 ? compact.format(n) : int.format(n)} tokens`;
export const fmtUsd = (n: number): string => `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;
export const fmtMs = (n: number | null): string => (n === null ? '—' : `${int.format(n)} ms`);
export const fmtPct = (f: number, digits = 0): string => `${(f * 100).toFixed(digits)} %`;

const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const fmtLocal = (iso: string): string => local.format(new Date(iso));
export const fmtUtc = (iso: string): string => `${new Date(iso).toISOString().replace('T', ' ').slice(0, 19)} UTC`;

/** "3 minutes ago" / "in 2 hours", for recent times. */
export function fmtRelative(iso: string, now = Date.now()): string {
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  const a = Math.abs(s);
  if (a < 60) return rtf.format(s, 'second');
  if (a < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (a < 86400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86400), 'day');
}
