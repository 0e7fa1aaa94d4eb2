/**
 * Errors of the chat-completions style: body `{"error":{"message","type","param","code"}}` (reference §A, §D6).
 * Decoding trusts the HTTP status first, then the type/code strings; encoding follows the table in §D6
 * (529 is shown as 503: chat clients do not know 529). An in-stream error has no status, so its code alone tells
 * an overloaded upstream (`server_is_overloaded`) from a failing one (`server_error` type, no code).
 */
import type { UpstreamError, UpstreamErrorType } from '../model.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { errorTypeForStatus, retryAfterSeconds, STATUS_FOR_ERROR_TYPE, type HeaderBag } from '../upstream-error-status.ts';
import type { ChatErrorBody } from './types.ts';

/** Type or code strings seen in chat-style bodies, for errors without a useful status (mid-stream). */
const FROM_CODE: Record<string, UpstreamErrorType> = {
  invalid_request_error: 'invalid_request',
  invalid_api_key: 'authentication',
  authentication_error: 'authentication',
  permission_error: 'permission',
  model_not_found: 'not_found',
  not_found_error: 'not_found',
  context_length_exceeded: 'invalid_request',
  rate_limit_exceeded: 'rate_limit',
  insufficient_quota: 'rate_limit',
  requests: 'rate_limit',
  tokens: 'rate_limit',
  server_error: 'server',
  api_error: 'server',
  overloaded_error: 'overloaded',
  server_is_overloaded: 'overloaded',
  timeout: 'timeout',
};

const TO_CHAT = {
  invalid_request: { type: 'invalid_request_error', code: null },
  authentication: { type: 'invalid_request_error', code: 'invalid_api_key' },
  permission: { type: 'permission_error', code: null },
  not_found: { type: 'invalid_request_error', code: 'model_not_found' },
  rate_limit: { type: 'requests', code: 'rate_limit_exceeded' },
  overloaded: { type: 'server_error', code: 'server_is_overloaded' },
  server: { type: 'server_error', code: null },
  timeout: { type: 'server_error', code: 'timeout' },
} as const satisfies Record<UpstreamErrorType, { type: string; code: string | null }>;

/** Decodes an error answer (status 0 or undefined for an in-stream error object). */
export function decodeChatError(status: number | undefined, body: unknown, headers?: HeaderBag): UpstreamError {
  const parsed = typeof body === 'string' ? tryJson(body) : body;
  const e = isPlainObject(parsed) && isPlainObject(parsed.error) ? parsed.error : undefined;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const type = typeof e?.type === 'string' ? e.type : undefined;
  let message = typeof e?.message === 'string' ? e.message : undefined;
  if (message === undefined) message = typeof body === 'string' && body.trim() !== '' ? body.slice(0, 500) : `Upstream answered with status ${status ?? 'unknown'}.`;
  const known = (code && FROM_CODE[code]) || (type && FROM_CODE[type]) || undefined;
  const errType = status && status >= 400 ? errorTypeForStatus(status) : (known ?? 'server');
  const out: UpstreamError = { status: status && status >= 400 ? status : STATUS_FOR_ERROR_TYPE[errType], type: errType, message };
  const upstreamCode = code ?? type;
  if (upstreamCode !== undefined) out.code = upstreamCode;
  const retry = retryAfterSeconds(headers);
  if (retry !== undefined) out.retryAfter = retry;
  return out;
}

/**
 * The error object as it appears in a chat body or stream. The upstream's code is kept only when this style reads
 * it back as the same type (`insufficient_quota`, `context_length_exceeded`); a foreign one (Gemini's
 * `UNAVAILABLE`) would make a chat client misread an in-stream error, so the type's own code is sent instead.
 */
export function chatErrorBody(err: UpstreamError): ChatErrorBody {
  const t = TO_CHAT[err.type];
  const code = err.code !== undefined && FROM_CODE[err.code] === err.type ? err.code : t.code;
  return { error: { message: err.message, type: t.type, param: null, code } };
}

export function encodeChatError(err: UpstreamError): { status: number; body: ChatErrorBody; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers['retry-after'] = String(err.retryAfter);
  return { status: err.status === 529 ? 503 : err.status, body: chatErrorBody(err), headers };
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
