/**
 * A quota window of a subscription plan, as read from the provider: the share used (0..1, above 1 when the provider
 * reports an overrun), when it resets, and the model family it limits (null = the whole account). The same shape
 * comes from a usage endpoint (usage-windows.ts) and from rate-limit headers (rate-limit-headers.ts).
 */
export interface QuotaWindow {
  name: string;
  family: string | null;
  used: number;
  /** Unix ms; null when the provider did not say. */
  resetsAt: number | null;
  /** Length of the window when known (for the forecast). */
  windowSeconds: number | null;
}

/** A window with under 2 % left pauses the account (or its family) until it resets (issue: "pause before the wall"). */
export const PAUSE_AT_USED = 0.98;

const LENGTHS: [RegExp, number][] = [
  [/^five_hour/, 5 * 3600],
  [/^seven_day/, 7 * 86_400],
  [/^(one_)?day|^daily/, 86_400],
  [/^(one_)?hour|^hourly/, 3600],
];

/** The length of a window from its conventional name (`five_hour`, `seven_day_sonnet`), when recognisable. */
export function windowSecondsOf(name: string): number | null {
  for (const [re, s] of LENGTHS) if (re.test(name)) return s;
  return null;
}

/** Parses an RFC 3339 time or unix seconds; undefined when neither. */
export function parseResetTime(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v < 1e12 ? v * 1000 : v;
  if (typeof v === 'string' && v.trim() !== '') {
    if (/^\d+(\.\d+)?$/.test(v.trim())) return parseResetTime(Number(v));
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}
