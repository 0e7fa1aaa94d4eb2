import { describe, expect, it } from 'vitest';
import { convertResponsesUsage, toResponsesUsage } from './convert-responses-usage.ts';
import { decodeResponsesError, encodeResponsesError } from './responses-errors.ts';

describe('decodeResponsesError', () => {
  it('reads chat-style bodies, the backend detail form and quota resets', () => {
    expect(decodeResponsesError(400, { error: { message: 'Bad.', type: 'invalid_request_error', code: 'invalid_encrypted_content', param: null } }))
      .toEqual({ status: 400, type: 'invalid_request', message: 'Bad.', code: 'invalid_encrypted_content' });
    expect(decodeResponsesError(400, '{"detail":"Store must be set to false"}')).toEqual({ status: 400, type: 'invalid_request', message: 'Store must be set to false' });
    expect(decodeResponsesError(429, { error: { type: 'usage_limit_reached', message: 'Limit.', resets_at: 1_000_100 } }, undefined, 1_000_000_000))
      .toEqual({ status: 429, type: 'rate_limit', message: 'Limit.', code: 'usage_limit_reached', retryAfter: 100 });
    expect(decodeResponsesError(429, { error: { type: 'usage_not_included', message: 'No Codex.' } }).type).toBe('rate_limit');
    expect(decodeResponsesError(503, 'upstream connect error')).toEqual({ status: 503, type: 'overloaded', message: 'upstream connect error' });
    expect(decodeResponsesError(401, { error: { message: 'x', type: 'invalid_request_error', code: 'invalid_api_key' } }).type).toBe('authentication');
    expect(decodeResponsesError(429, {}, { 'retry-after': '12' }).retryAfter).toBe(12);
  });

  it('reads in-stream errors (status 0) by code', () => {
    expect(decodeResponsesError(0, { type: 'error', code: 'server_is_overloaded', message: 'Busy.' })).toEqual({ status: 503, type: 'overloaded', message: 'Busy.', code: 'server_is_overloaded' });
    expect(decodeResponsesError(0, { error: { code: 'context_length_exceeded', message: 'Too long.' } })).toMatchObject({ status: 400, type: 'invalid_request' });
  });
});

describe('encodeResponsesError', () => {
  it('answers status, chat-style body and Retry-After', () => {
    expect(encodeResponsesError({ status: 429, type: 'rate_limit', message: 'Slow.', retryAfter: 5 })).toEqual({
      status: 429, body: { error: { message: 'Slow.', type: 'requests', param: null, code: 'rate_limit_exceeded' } }, headers: { 'retry-after': '5' },
    });
    expect(encodeResponsesError({ status: 529, type: 'overloaded', message: 'Busy.' }).status).toBe(503);
  });
});

describe('responses usage', () => {
  it('subtracts cached tokens and keeps reasoning inside output', () => {
    const u = convertResponsesUsage({ input_tokens: 45, input_tokens_details: { cached_tokens: 5 }, output_tokens: 25, output_tokens_details: { reasoning_tokens: 10 }, total_tokens: 70 });
    expect(u).toEqual({ inputTokens: 40, cacheReadTokens: 5, outputTokens: 25, reasoningTokens: 10, source: 'reported' });
    expect(toResponsesUsage(u)).toEqual({ input_tokens: 45, input_tokens_details: { cached_tokens: 5, cache_write_tokens: 0 }, output_tokens: 25, output_tokens_details: { reasoning_tokens: 10 }, total_tokens: 70 });
  });

  it('leaves unknown counts unknown', () => {
    expect(convertResponsesUsage({ input_tokens: 3, output_tokens: 2 })).toEqual({ inputTokens: 3, outputTokens: 2, source: 'reported' });
    expect(convertResponsesUsage(null)).toEqual({ source: 'unknown' });
    expect(toResponsesUsage({ source: 'unknown' })).toBeNull();
  });
});
