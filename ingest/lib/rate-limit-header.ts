/**
 * The rate-limit header SDKs read on every response, `X-Sentry-Rate-Limits` (and ours, `X-Client-Rate-Limits`,
 * with the same value):
 *
 * ```text
 * value   = limit { ", " limit }
 * limit   = retry_after ":" categories ":" scope [ ":" reason_code ]
 * categories = [ category { ";" category } ]      (empty = every category)
 * scope   = "organization" | "project" | "key"
 * ```
 *
 * Example: `60:error;default:project:project_quota`. A 429 also carries `Retry-After` (whole seconds, the
 * longest of the limits): an SDK that sees a 429 without the header backs off 60 s for everything.
 * @see https://develop.sentry.dev/sdk/expected-features/rate-limiting/
 */
import type { DataCategory } from './data-category.ts';

export type RateLimitScope = 'organization' | 'project' | 'key';

export interface RateLimit {
  /** Seconds until the SDK may send again; rounded up, at least 1. */
  retryAfterSeconds: number;
  /** Categories the limit covers; empty means all. */
  categories: readonly DataCategory[];
  scope: RateLimitScope;
  /** A snake_case reason, e.g. the error code of the limit. Omitted when it is not snake_case. */
  reasonCode?: string;
}

const REASON = /^[a-z0-9_]{1,64}$/;

/** One `retry_after:categories:scope[:reason_code]` entry. */
export function formatRateLimit(limit: RateLimit): string {
  const parts = [String(seconds(limit.retryAfterSeconds)), [...new Set(limit.categories)].join(';'), limit.scope];
  if (limit.reasonCode !== undefined && REASON.test(limit.reasonCode)) parts.push(limit.reasonCode);
  return parts.join(':');
}

/** The header value for several limits, joined by ", ". */
export function formatRateLimits(limits: readonly RateLimit[]): string {
  return limits.map(formatRateLimit).join(', ');
}

/** `Retry-After`, `X-Sentry-Rate-Limits` and `X-Client-Rate-Limits` for a 429 (or any response) under these limits. */
export function rateLimitHeaders(limits: RateLimit | readonly RateLimit[]): Record<string, string> {
  const list: readonly RateLimit[] = isList(limits) ? limits : [limits];
  if (list.length === 0) return {};
  const value = formatRateLimits(list);
  const retryAfter = Math.max(...list.map((l) => seconds(l.retryAfterSeconds)));
  return { 'Retry-After': String(retryAfter), 'X-Sentry-Rate-Limits': value, 'X-Client-Rate-Limits': value };
}

function isList(v: RateLimit | readonly RateLimit[]): v is readonly RateLimit[] {
  return Array.isArray(v);
}

function seconds(n: number): number {
  return Number.isFinite(n) ? Math.max(1, Math.ceil(n)) : 60;
}
