/**
 * Per-key limits of a gateway key (column gateway_keys.limits, jsonb). Every limit is optional; absent = unlimited;
 * 0 = nothing allowed. Months are calendar months in UTC. The proxy enforces them (requests per minute and per day
 * answer 429 with Retry-After; tokens and dollars per month answer 403; DESIGN.md §3).
 */

export interface KeyLimits {
  requests_per_minute?: number;
  requests_per_day?: number;
  tokens_per_month?: number;
  dollars_per_month?: number;
}

export type KeyLimitName = keyof KeyLimits;

/** Each limit with its JSON type and the largest value accepted (anything larger is surely a mistake). */
export const KEY_LIMITS: Readonly<Record<KeyLimitName, { type: 'integer' | 'number'; max: number }>> = {
  requests_per_minute: { type: 'integer', max: 1_000_000 },
  requests_per_day: { type: 'integer', max: 1_000_000_000 },
  tokens_per_month: { type: 'integer', max: 1_000_000_000_000 },
  dollars_per_month: { type: 'number', max: 10_000_000 },
};

export const KEY_LIMIT_NAMES = Object.keys(KEY_LIMITS) as KeyLimitName[];

/** JSON schema of the `limits` object in requests (null = unlimited, same as absent). */
export const KEY_LIMITS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'Optional limits; absent or null = unlimited. Months are calendar months in UTC.',
  properties: Object.fromEntries(
    KEY_LIMIT_NAMES.map((n) => [n, { type: [KEY_LIMITS[n].type, 'null'], minimum: 0, maximum: KEY_LIMITS[n].max }]),
  ),
} as const;

/** Keeps the limits that are set (drops nulls); values are assumed validated by KEY_LIMITS_SCHEMA. */
export function normaliseKeyLimits(input: Partial<Record<KeyLimitName, number | null>>): KeyLimits {
  const out: KeyLimits = {};
  for (const n of KEY_LIMIT_NAMES) {
    const v = input[n];
    if (typeof v === 'number' && Number.isFinite(v)) out[n] = v;
  }
  return out;
}

/** Reads a stored limits value defensively: unknown fields and non-numbers are ignored. */
export function readKeyLimits(stored: unknown): KeyLimits {
  if (typeof stored !== 'object' || stored === null) return {};
  return normaliseKeyLimits(stored as Partial<Record<KeyLimitName, number | null>>);
}
