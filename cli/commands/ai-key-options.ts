/**
 * The options `svc ai keys create` and `update` share: limits in plain units (--budget dollars per month, --daily
 * requests per day, --per-minute requests per minute, --tokens tokens per month; `none` removes one on update),
 * allowed models and body logging, turned into the fields of POST/PATCH /api/v1/keys.
 */
import { CliError } from '../cli-error.ts';
import type { OptionSpecs } from '../command.ts';

export const KEY_OPTIONS = {
  models: { type: 'string', value: 'a,b*', description: 'Allowed models: ids, alias names or * patterns, comma-separated (default every model).' },
  budget: { type: 'string', value: 'DOLLARS', description: 'Dollar budget per calendar month (UTC), e.g. 25 or 12.50; calls answer 403 once spent.' },
  daily: { type: 'string', value: 'REQUESTS', description: 'Requests per day (sliding 24 hours); more answer 429 with Retry-After.' },
  'per-minute': { type: 'string', value: 'REQUESTS', description: 'Requests per minute (sliding 60 seconds); more answer 429 with Retry-After.' },
  tokens: { type: 'string', value: 'TOKENS', description: 'Token budget per calendar month (UTC): input + output + cache tokens.' },
  'log-bodies': { type: 'string', value: 'off|1d|7d|30d', description: 'Keep request and response bodies of the calls for 1, 7 or 30 days (off deletes kept ones).' },
  compression: { type: 'string', value: 'off|audit-only|on|inherit', description: "Conversation compression of the key's calls; it can only lower the team's and the instance's mode (inherit: none of its own)." },
  'response-store': { type: 'string', value: 'off|1d…30d', description: 'How long stored responses (previous_response_id) are kept: 1d to 30d (default 1d); off keeps none and deletes kept ones.' },
} as const satisfies OptionSpecs;

export type LimitName = 'requests_per_minute' | 'requests_per_day' | 'tokens_per_month' | 'dollars_per_month';

const LIMIT_FLAGS: [keyof typeof KEY_OPTIONS, LimitName, 'int' | 'dollars'][] = [
  ['budget', 'dollars_per_month', 'dollars'],
  ['daily', 'requests_per_day', 'int'],
  ['per-minute', 'requests_per_minute', 'int'],
  ['tokens', 'tokens_per_month', 'int'],
];

function parseLimit(flag: string, raw: string, kind: 'int' | 'dollars', allowNone: boolean, helpFor: string): number | null {
  if (allowNone && raw === 'none') return null;
  const ok = kind === 'int' ? /^\d{1,13}$/.test(raw) : /^\$?\d{1,8}(\.\d{1,6})?$/.test(raw);
  if (!ok) {
    const what = kind === 'int' ? 'a whole number' : 'an amount of dollars such as 25 or 12.50';
    throw new CliError('usage', `--${flag} must be ${what}${allowNone ? ', or none to remove the limit' : ''} (got "${raw}").`, { helpFor });
  }
  return Number(raw.replace(/^\$/, ''));
}

/** The limits given on the command line (null = remove, with allowNone), or undefined when none was given. */
export function limitsFromOptions(opts: Record<string, string | boolean | undefined>, allowNone: boolean, helpFor: string): Partial<Record<LimitName, number | null>> | undefined {
  const out: Partial<Record<LimitName, number | null>> = {};
  let any = false;
  for (const [flag, name, kind] of LIMIT_FLAGS) {
    const raw = opts[flag];
    if (typeof raw !== 'string') continue;
    out[name] = parseLimit(flag, raw, kind, allowNone, helpFor);
    any = true;
  }
  return any ? out : undefined;
}

export function modelsFromOption(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw.split(',').map((m) => m.trim()).filter(Boolean);
}

export function logBodiesFromOption(raw: string | undefined, helpFor: string): string | undefined {
  if (raw === undefined) return undefined;
  if (!['off', '1d', '7d', '30d'].includes(raw)) throw new CliError('usage', `--log-bodies must be off, 1d, 7d or 30d (got "${raw}").`, { helpFor });
  return raw;
}

/** A --response-store value for the API (`off` or `1d` … `30d`); undefined when the option was not given. */
export function responseStoreFromOption(raw: string | undefined, helpFor: string): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^(off|([1-9]|[12][0-9]|30)d)$/.test(raw)) throw new CliError('usage', `--response-store must be off or a number of days from 1d to 30d (got "${raw}").`, { helpFor });
  return raw;
}

/** A --compression value for the API: a mode, or null for inherit; undefined when the option was not given. */
export function compressionFromOption(raw: string | undefined, helpFor: string): string | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'inherit') return null;
  if (!['off', 'audit-only', 'on'].includes(raw)) throw new CliError('usage', `--compression must be off, audit-only, on or inherit (got "${raw}").`, { helpFor });
  return raw;
}

/** "$12.50 / month, 1,000 / day" — what a key's limits say, for people. */
export function describeLimits(l: Partial<Record<LimitName, number>>): string {
  const parts: string[] = [];
  if (l.dollars_per_month !== undefined) parts.push(`$${l.dollars_per_month}/month`);
  if (l.tokens_per_month !== undefined) parts.push(`${l.tokens_per_month.toLocaleString('en-US')} tokens/month`);
  if (l.requests_per_day !== undefined) parts.push(`${l.requests_per_day.toLocaleString('en-US')}/day`);
  if (l.requests_per_minute !== undefined) parts.push(`${l.requests_per_minute.toLocaleString('en-US')}/min`);
  return parts.length ? parts.join(', ') : 'none';
}
