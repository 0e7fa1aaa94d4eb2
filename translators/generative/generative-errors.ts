// Errors in the generative-language shape, `{"error":{"code","message","status","details"}}` (reference §C, §D6).
// - A bad API key answers 400 INVALID_ARGUMENT with reason API_KEY_INVALID: decoded as an authentication error.
// - Billing or region problems answer 400 FAILED_PRECONDITION: decoded as a permission error.
// - 429 RESOURCE_EXHAUSTED carries `RetryInfo.retryDelay` ("34.4s"), decoded into `retryAfter` and encoded back.
// - `:streamGenerateContent` without `alt=sse` wraps the error in a one-element array.
// @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes

import type { UpstreamError, UpstreamErrorType } from '../model.ts';
import { errorTypeForStatus, retryAfterSeconds, STATUS_FOR_ERROR_TYPE, type HeaderBag } from '../upstream-error-status.ts';
import type { GenerativeErrorBody, GenerativeErrorStatus, GenerativeObject } from './types.ts';

const TYPE_FOR_STATUS: Partial<Record<GenerativeErrorStatus, UpstreamErrorType>> = {
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'permission',
  UNAUTHENTICATED: 'authentication',
  PERMISSION_DENIED: 'permission',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limit',
  INTERNAL: 'server',
  UNKNOWN: 'server',
  CANCELLED: 'server',
  UNAVAILABLE: 'overloaded',
  DEADLINE_EXCEEDED: 'timeout',
};

/** The status string and HTTP code a generative-language client sees for each error type. */
export const GENERATIVE_ERROR_STATUS = {
  invalid_request: { status: 'INVALID_ARGUMENT', code: 400 },
  authentication: { status: 'UNAUTHENTICATED', code: 401 },
  permission: { status: 'PERMISSION_DENIED', code: 403 },
  not_found: { status: 'NOT_FOUND', code: 404 },
  rate_limit: { status: 'RESOURCE_EXHAUSTED', code: 429 },
  overloaded: { status: 'UNAVAILABLE', code: 503 },
  server: { status: 'INTERNAL', code: 500 },
  timeout: { status: 'DEADLINE_EXCEEDED', code: 504 },
} as const satisfies Record<UpstreamErrorType, { status: GenerativeErrorStatus; code: number }>;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function details(err: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(err.details) ? err.details.filter(isObject) : [];
}

function retryDelay(list: Record<string, unknown>[]): number | undefined {
  for (const d of list) {
    const m = typeof d.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay) : null;
    if (m !== null) return Math.ceil(Number(m[1]));
  }
  return undefined;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * An error answer (parsed JSON or raw text) from a generative-language upstream; status 0 for a stream frame.
 * `retry-after` headers are read when the body has no RetryInfo.
 */
export function decodeGenerativeError(status: number, body: unknown, headers?: HeaderBag): UpstreamError {
  const parsed = typeof body === 'string' ? tryJson(body) : body;
  const root = Array.isArray(parsed) ? parsed[0] : parsed;
  const err = isObject(root) && isObject(root.error) ? root.error : undefined;
  if (err === undefined) {
    const text = typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 500) : `The upstream answered HTTP ${status}.`;
    const type = errorTypeForStatus(status >= 400 ? status : 500);
    const out: UpstreamError = { status: status >= 400 ? status : STATUS_FOR_ERROR_TYPE[type], type, message: text };
    const retry = retryAfterSeconds(headers);
    if (retry !== undefined) out.retryAfter = retry;
    return out;
  }
  const rpc = typeof err.status === 'string' ? err.status : undefined;
  const list = details(err);
  const reason = list.map((d) => d.reason).find((r): r is string => typeof r === 'string');
  const bodyCode = typeof err.code === 'number' && err.code >= 400 ? err.code : undefined;
  let type = (rpc !== undefined ? TYPE_FOR_STATUS[rpc as GenerativeErrorStatus] : undefined)
    ?? errorTypeForStatus(bodyCode ?? (status >= 400 ? status : 500));
  if (reason === 'API_KEY_INVALID') type = 'authentication';
  // A mid-stream error has no HTTP status of its own (status 0): take the body's code, else the type's.
  const httpStatus = status >= 400 ? status : bodyCode ?? STATUS_FOR_ERROR_TYPE[type];
  const out: UpstreamError = {
    status: httpStatus,
    type,
    message: typeof err.message === 'string' && err.message !== '' ? err.message : `The upstream answered ${rpc ?? `HTTP ${httpStatus}`}.`,
  };
  const code = reason ?? rpc;
  if (code !== undefined) out.code = code;
  const retry = retryDelay(list) ?? retryAfterSeconds(headers);
  if (retry !== undefined) out.retryAfter = retry;
  return out;
}

/** The error object as it appears in a generative-language body or stream frame. */
export function generativeErrorBody(err: UpstreamError): GenerativeErrorBody {
  const { status, code } = GENERATIVE_ERROR_STATUS[err.type];
  const httpCode = err.status >= 400 && err.status !== 529 ? err.status : code;
  const body: GenerativeErrorBody = { error: { code: httpCode, message: err.message, status } };
  if (err.retryAfter !== undefined) {
    const retry: GenerativeObject = { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${err.retryAfter}s` };
    body.error.details = [retry];
  }
  return body;
}

/** The HTTP answer for a generative-language client: status (529 shown as 503), body and `Retry-After`. */
export function encodeGenerativeError(err: UpstreamError): { status: number; body: GenerativeErrorBody; headers: Record<string, string> } {
  const body = generativeErrorBody(err);
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers['retry-after'] = String(err.retryAfter);
  return { status: body.error.code, body, headers };
}
