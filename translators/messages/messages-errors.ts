/**
 * Errors of the messages style: body `{"type":"error","error":{"type","message"},"request_id"}` (reference §B,
 * §D6). Overloaded answers use 529, which only messages clients know; other styles show it as 503.
 * @see https://docs.anthropic.com/en/api/errors
 */
import type { UpstreamError, UpstreamErrorType } from '../model.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { errorTypeForStatus, retryAfterSeconds, STATUS_FOR_ERROR_TYPE, type HeaderBag } from '../upstream-error-status.ts';
import type { MessagesErrorBody, MessagesErrorObject } from './types.ts';

const FROM_MESSAGES: Record<string, UpstreamErrorType> = {
  invalid_request_error: 'invalid_request',
  request_too_large: 'invalid_request',
  authentication_error: 'authentication',
  billing_error: 'permission',
  permission_error: 'permission',
  not_found_error: 'not_found',
  rate_limit_error: 'rate_limit',
  api_error: 'server',
  timeout_error: 'timeout',
  overloaded_error: 'overloaded',
};

const TO_MESSAGES = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  rate_limit: 'rate_limit_error',
  overloaded: 'overloaded_error',
  server: 'api_error',
  timeout: 'timeout_error',
} as const satisfies Record<UpstreamErrorType, string>;

/** Decodes an error answer (status undefined for an in-stream `error` event). */
export function decodeMessagesError(status: number | undefined, body: unknown, headers?: HeaderBag): UpstreamError {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
  }
  const e = isPlainObject(parsed) && isPlainObject(parsed.error) ? parsed.error : undefined;
  const wireType = typeof e?.type === 'string' ? e.type : undefined;
  let message = typeof e?.message === 'string' ? e.message : undefined;
  if (message === undefined) message = typeof body === 'string' && body.trim() !== '' ? body.slice(0, 500) : `Upstream answered with status ${status ?? 'unknown'}.`;
  const known = wireType !== undefined ? FROM_MESSAGES[wireType] : undefined;
  const hasStatus = status !== undefined && status >= 400;
  const type = known ?? (hasStatus ? errorTypeForStatus(status) : 'server');
  const out: UpstreamError = { status: hasStatus ? status : type === 'overloaded' ? 529 : STATUS_FOR_ERROR_TYPE[type], type, message };
  if (wireType !== undefined) out.code = wireType;
  const retry = retryAfterSeconds(headers);
  if (retry !== undefined) out.retryAfter = retry;
  return out;
}

/** The error object for a body or an in-stream `error` event. */
export function messagesErrorObject(err: UpstreamError): MessagesErrorObject {
  let type: string = TO_MESSAGES[err.type];
  if (err.code === 'billing_error' || err.code === 'request_too_large') type = err.code;
  else if (err.type === 'invalid_request' && err.status === 413) type = 'request_too_large';
  return { type, message: err.message };
}

export function encodeMessagesError(err: UpstreamError): { status: number; body: MessagesErrorBody; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers['retry-after'] = String(err.retryAfter);
  const status = err.type === 'overloaded' && (err.status === 503 || err.status === 529) ? 529 : err.status;
  return { status, body: { type: 'error', error: messagesErrorObject(err) }, headers };
}
