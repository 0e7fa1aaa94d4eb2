/**
 * Status ↔ error-type tables shared by every style's error decoder and encoder (reference §D6), and the
 * `Retry-After` reading. Style-specific type strings live in each style's own errors file.
 */
import type { UpstreamErrorType } from './model.ts';

/** The neutral error type an HTTP status implies when the body says nothing more precise. */
export function errorTypeForStatus(status: number): UpstreamErrorType {
  if (status === 401) return 'authentication';
  if (status === 402 || status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rate_limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

/** The status that stands for an error type when there is none (a mid-stream error event). */
export const STATUS_FOR_ERROR_TYPE = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  rate_limit: 429,
  overloaded: 503,
  server: 500,
  timeout: 504,
} as const satisfies Record<UpstreamErrorType, number>;

export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

function header(headers: HeaderBag | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const v = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Seconds to wait, from `retry-after-ms`, `retry-after` (seconds or an HTTP date, RFC 9110 §10.2.3).
 * @see https://www.rfc-editor.org/rfc/rfc9110#field.retry-after
 */
export function retryAfterSeconds(headers: HeaderBag | undefined, now = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms) / 1000);
  const v = header(headers, 'retry-after')?.trim();
  if (v === undefined || v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
