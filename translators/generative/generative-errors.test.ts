import { describe, expect, it } from 'vitest';
import { encodeGenerativeCountTokens } from './encode-generative-count-tokens.ts';
import { decodeGenerativeError, encodeGenerativeError, generativeErrorBody } from './generative-errors.ts';

describe('decodeGenerativeError', () => {
  it('reads status, message and RetryInfo of a 429', () => {
    expect(decodeGenerativeError(429, { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34.4s' }] } }))
      .toEqual({ status: 429, type: 'rate_limit', message: 'Quota exceeded.', code: 'RESOURCE_EXHAUSTED', retryAfter: 35 });
  });

  it('recognises a bad key answered with 400, billing problems, array-wrapped bodies and text bodies', () => {
    expect(decodeGenerativeError(400, { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }] } }))
      .toEqual({ status: 400, type: 'authentication', message: 'API key not valid.', code: 'API_KEY_INVALID' });
    expect(decodeGenerativeError(400, { error: { code: 400, message: 'User location is not supported.', status: 'FAILED_PRECONDITION' } }).type).toBe('permission');
    expect(decodeGenerativeError(404, [{ error: { code: 404, message: 'models/x is not found', status: 'NOT_FOUND' } }]).type).toBe('not_found');
    expect(decodeGenerativeError(502, '<html>Bad Gateway</html>')).toEqual({ status: 502, type: 'server', message: '<html>Bad Gateway</html>' });
    expect(decodeGenerativeError(504, undefined)).toEqual({ status: 504, type: 'timeout', message: 'The upstream answered HTTP 504.' });
    expect(decodeGenerativeError(429, '{"error":{"code":429,"message":"Slow.","status":"RESOURCE_EXHAUSTED"}}', { 'retry-after': '9' })).toMatchObject({ type: 'rate_limit', message: 'Slow.', retryAfter: 9 });
  });

  it('maps every status string', () => {
    const types = ['INVALID_ARGUMENT', 'UNAUTHENTICATED', 'PERMISSION_DENIED', 'NOT_FOUND', 'RESOURCE_EXHAUSTED', 'INTERNAL', 'UNAVAILABLE', 'DEADLINE_EXCEEDED']
      .map((status) => decodeGenerativeError(0, { error: { message: 'x', status } }));
    expect(types.map((t) => [t.type, t.status])).toEqual([
      ['invalid_request', 400], ['authentication', 401], ['permission', 403], ['not_found', 404],
      ['rate_limit', 429], ['server', 500], ['overloaded', 503], ['timeout', 504],
    ]);
  });
});

describe('encodeGenerativeError', () => {
  it('writes the google status string and shows 529 as 503', () => {
    expect(encodeGenerativeError({ status: 529, type: 'overloaded', message: 'Overloaded.' })).toEqual({ status: 503, body: { error: { code: 503, message: 'Overloaded.', status: 'UNAVAILABLE' } }, headers: {} });
    expect(encodeGenerativeError({ status: 401, type: 'authentication', message: 'Bad key.' }).body).toEqual({ error: { code: 401, message: 'Bad key.', status: 'UNAUTHENTICATED' } });
    expect(generativeErrorBody({ status: 0, type: 'timeout', message: 'Late.' }).error).toMatchObject({ code: 504, status: 'DEADLINE_EXCEEDED' });
    expect(encodeGenerativeError({ status: 429, type: 'rate_limit', message: 'Slow.', retryAfter: 3 })).toMatchObject({ status: 429, headers: { 'retry-after': '3' } });
  });

  it('answers countTokens', () => {
    expect(encodeGenerativeCountTokens(42)).toEqual({ totalTokens: 42 });
  });
});
