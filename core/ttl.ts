/**
 * Lifetimes: a number of seconds, a duration such as `90s`, `15m`, `12h`, `3d`, `2w`, or `never`.
 * The one parser for every `ttl` of the API; returns seconds, or null for never.
 */
import { svcError } from './errors.ts';

const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
const MAX_SECONDS = 100 * 365 * 86400;

export function parseTtl(input: unknown): number | null {
  if (input === 'never' || input === null) return null;
  let seconds: number | undefined;
  if (typeof input === 'number' && Number.isInteger(input)) seconds = input;
  else if (typeof input === 'string') {
    const m = /^(\d{1,12})([smhdw]?)$/.exec(input.trim());
    if (m) seconds = Number(m[1]) * (m[2] ? UNIT[m[2]] : 1);
  }
  if (seconds === undefined || seconds <= 0 || seconds > MAX_SECONDS) {
    throw svcError('invalid_ttl', `The ttl ${JSON.stringify(input)} is not valid: use seconds, a duration such as 12h or 3d, or never.`);
  }
  return seconds;
}
