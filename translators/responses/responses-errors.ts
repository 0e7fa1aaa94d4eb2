// Errors of the responses style (reference §F3, §F4, §D6).
// - HTTP bodies are the chat-style `{"error":{"message","type","code","param"}}`; the ChatGPT-plan backend adds
//   quota fields (`usage_limit_reached` with `resets_in_seconds`/`resets_at`) and answers some 400s as `{"detail"}`.
// - In a stream, an `error` event carries `code`/`message` at the top level or nested under `error`, and a
//   `response.failed` event carries `response.error{code,message}`.
// @see https://platform.openai.com/docs/api-reference/responses-streaming/error

import type { UpstreamError, UpstreamErrorType } from '../model.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { errorTypeForStatus, retryAfterSeconds, STATUS_FOR_ERROR_TYPE, type HeaderBag } from '../upstream-error-status.ts';
import type { ResponsesErrorBody } from './types.ts';

/** Code or type strings, for errors whose status says nothing (mid-stream) or says less than the code. */
const FROM_CODE: Record<string, UpstreamErrorType> = {
  invalid_request_error: 'invalid_request',
  context_length_exceeded: 'invalid_request',
  invalid_encrypted_content: 'invalid_request',
  previous_response_not_found: 'invalid_request',
  invalid_prompt: 'invalid_request',
  invalid_api_key: 'authentication',
  authentication_error: 'authentication',
  permission_error: 'permission',
  usage_not_included: 'permission',
  model_not_found: 'not_found',
  rate_limit_exceeded: 'rate_limit',
  usage_limit_reached: 'rate_limit',
  insufficient_quota: 'rate_limit',
  server_error: 'server',
  server_is_overloaded: 'overloaded',
  timeout: 'timeout',
};

const TO_RESPONSES = {
  invalid_request: { type: 'invalid_request_error', code: null },
  authentication: { type: 'invalid_request_error', code: 'invalid_api_key' },
  permission: { type: 'permission_error', code: null },
  not_found: { type: 'invalid_request_error', code: 'model_not_found' },
  rate_limit: { type: 'requests', code: 'rate_limit_exceeded' },
  overloaded: { type: 'server_error', code: 'server_is_overloaded' },
  server: { type: 'server_error', code: 'server_error' },
  timeout: { type: 'server_error', code: 'timeout' },
} as const satisfies Record<UpstreamErrorType, { type: string; code: string | null }>;

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * An error answer (status 0 for a stream event). Accepts an HTTP body, an `error` stream event (flat or nested)
 * or the `error` object of a failed response. `now` (unix ms) turns `resets_at` into seconds to wait.
 */
export function decodeResponsesError(status: number, body: unknown, headers?: HeaderBag, now = Date.now()): UpstreamError {
  const parsed = typeof body === 'string' ? tryJson(body) : body;
  const root = isPlainObject(parsed) ? parsed : {};
  const e = isPlainObject(root.error) ? root.error : root;
  const code = str(e.code);
  const kind = str(e.type) !== 'error' ? str(e.type) : undefined;
  const fallback = typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 500) : `The upstream answered with status ${status || 'unknown'}.`;
  const message = str(e.message) ?? str(root.detail) ?? fallback;
  // The HTTP status decides (as in the chat style); a stream error has none and is read from its code or type.
  const type = status >= 400
    ? errorTypeForStatus(status)
    : (code !== undefined ? FROM_CODE[code] : undefined) ?? (kind !== undefined ? FROM_CODE[kind] : undefined) ?? 'server';
  const out: UpstreamError = { status: status >= 400 ? status : STATUS_FOR_ERROR_TYPE[type], type, message };
  const upstreamCode = code ?? kind;
  if (upstreamCode !== undefined) out.code = upstreamCode;
  const resetsIn = typeof e.resets_in_seconds === 'number' ? Math.ceil(e.resets_in_seconds) : undefined;
  const resetsAt = typeof e.resets_at === 'number' ? Math.max(0, Math.ceil(e.resets_at - now / 1000)) : undefined;
  const retry = retryAfterSeconds(headers, now) ?? resetsIn ?? resetsAt;
  if (retry !== undefined) out.retryAfter = retry;
  return out;
}

/**
 * The error object as it appears in a responses-style body. The upstream's code is kept when this style knows it
 * as a code of the same type (e.g. `context_length_exceeded`); a foreign one (`RESOURCE_EXHAUSTED`) would leave a
 * stream error unreadable, so the type's own code is sent instead.
 */
export function responsesErrorBody(err: UpstreamError): Required<Pick<ResponsesErrorBody, 'error'>> {
  const t = TO_RESPONSES[err.type];
  const code = err.code !== undefined && FROM_CODE[err.code] === err.type ? err.code : t.code;
  return { error: { message: err.message, type: t.type, param: null, code } };
}

/** The HTTP answer for a responses client: status (529 shown as 503), body and `Retry-After`. */
export function encodeResponsesError(err: UpstreamError): { status: number; body: ResponsesErrorBody; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers['retry-after'] = String(err.retryAfter);
  const status = err.status === 529 ? 503 : err.status >= 400 ? err.status : STATUS_FOR_ERROR_TYPE[err.type];
  return { status, body: responsesErrorBody(err), headers };
}
