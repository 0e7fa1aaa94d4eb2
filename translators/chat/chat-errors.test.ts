import { describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR_TYPES, type UpstreamErrorType } from '../model.ts';
import { STATUS_FOR_ERROR_TYPE } from '../upstream-error-status.ts';
import { chatErrorBody, decodeChatError, encodeChatError } from './chat-errors.ts';

describe('chat errors', () => {
  it('decodes a 429 with its code and Retry-After', () => {
    const err = decodeChatError(429, { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } }, { 'retry-after': '20' });
    expect(err).toEqual({ status: 429, type: 'rate_limit', message: 'Rate limit reached', code: 'rate_limit_exceeded', retryAfter: 20 });
  });

  it('decodes insufficient_quota as a rate limit and a text body as the message', () => {
    expect(decodeChatError(429, JSON.stringify({ error: { message: 'quota', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } })))
      .toMatchObject({ type: 'rate_limit', code: 'insufficient_quota' });
    expect(decodeChatError(502, 'Bad Gateway')).toEqual({ status: 502, type: 'server', message: 'Bad Gateway' });
    expect(decodeChatError(401, {})).toMatchObject({ type: 'authentication' });
  });

  it('reads retry-after-ms and HTTP dates', () => {
    expect(decodeChatError(429, {}, { 'retry-after-ms': '1500' }).retryAfter).toBe(2);
    const at = new Date(Date.now() + 30_000).toUTCString();
    expect(decodeChatError(429, {}, new Headers({ 'retry-after': at })).retryAfter).toBeGreaterThanOrEqual(28);
  });

  it('encodes per the status table, showing 529 as 503', () => {
    expect(encodeChatError({ status: 529, type: 'overloaded', message: 'Overloaded' })).toEqual({
      status: 503, headers: {}, body: { error: { message: 'Overloaded', type: 'server_error', param: null, code: 'server_is_overloaded' } },
    });
    expect(encodeChatError({ status: 429, type: 'rate_limit', message: 'slow down', retryAfter: 7 })).toEqual({
      status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    });
    expect(encodeChatError({ status: 401, type: 'authentication', message: 'bad key' }).body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
  });

  it('keeps an upstream code only when chat reads it back as the same type', () => {
    const body = (type: UpstreamErrorType, code: string) => encodeChatError({ status: STATUS_FOR_ERROR_TYPE[type], type, message: 'm', code }).body;
    expect(body('rate_limit', 'insufficient_quota').error.code).toBe('insufficient_quota');
    expect(body('invalid_request', 'context_length_exceeded').error.code).toBe('context_length_exceeded');
    expect(body('overloaded', 'UNAVAILABLE').error.code).toBe('server_is_overloaded');
    expect(body('server', 'INTERNAL').error.code).toBeNull();
    // A known code of another type is not kept either: the type decides.
    expect(body('server', 'rate_limit_exceeded').error.code).toBeNull();
  });

  it('an in-stream error (no status) is read back with its type, whatever the upstream code', () => {
    for (const type of UPSTREAM_ERROR_TYPES) {
      for (const code of [undefined, 'UNAVAILABLE', 'overloaded_error']) {
        const err = { status: STATUS_FOR_ERROR_TYPE[type], type, message: 'm', ...(code !== undefined ? { code } : {}) };
        expect(decodeChatError(undefined, chatErrorBody(err)).type, `${type} ${code}`).toBe(type);
      }
    }
  });
});
