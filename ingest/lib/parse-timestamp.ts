/**
 * Event timestamps as SDKs send them: an RFC 3339 string (a missing zone means UTC, and fractions of any
 * length are accepted) or epoch seconds as a number (float allowed) or a numeric string.
 * @see https://develop.sentry.dev/sdk/data-model/event-payloads/#required-attributes
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

/** Years outside this range are not real event times; treat them as invalid rather than overflow Date. */
const MIN_MS = Date.UTC(1970, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The instant a timestamp value names, or undefined when it is not a timestamp. */
export function parseTimestamp(value: unknown): Date | undefined {
  if (typeof value === 'number') return fromEpochSeconds(value);
  if (typeof value !== 'string') return undefined;
  const s = value.trim();
  if (NUMERIC.test(s)) return fromEpochSeconds(Number(s));
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(sec);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = frac === '' ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  let t = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), ms);
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offH = Number(digits.slice(0, 2));
    const offM = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (offH > 23 || offM > 59) return undefined;
    t -= sign * (offH * 60 + offM) * 60_000;
  }
  return inRange(t);
}

function fromEpochSeconds(n: number): Date | undefined {
  if (!Number.isFinite(n)) return undefined;
  return inRange(Math.round(n * 1000));
}

function inRange(ms: number): Date | undefined {
  return ms >= MIN_MS && ms <= MAX_MS ? new Date(ms) : undefined;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
