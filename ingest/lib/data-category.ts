/**
 * Data categories: what quotas, rate-limit headers and client reports count. Closed list, snake_case, as the
 * SDKs name them in `X-Sentry-Rate-Limits` and in `client_report` items.
 * @see https://develop.sentry.dev/sdk/expected-features/rate-limiting/#definitions
 */

export const DATA_CATEGORIES = [
  'default', 'error', 'transaction', 'security', 'attachment', 'session', 'replay', 'profile', 'profile_chunk',
  'monitor', 'span', 'log_item', 'log_byte', 'feedback', 'user_report_v2', 'internal', 'unknown',
] as const;

export type DataCategory = (typeof DATA_CATEGORIES)[number];

const KNOWN = new Set<string>(DATA_CATEGORIES);

export function isDataCategory(value: unknown): value is DataCategory {
  return typeof value === 'string' && KNOWN.has(value);
}
