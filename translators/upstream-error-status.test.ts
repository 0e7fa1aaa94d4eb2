import { describe, expect, it } from 'vitest';
import { errorTypeForStatus, retryAfterSeconds } from './upstream-error-status.ts';

describe('upstream-error-status', () => {
  it('maps statuses to error types and reads Retry-After', () => {
    expect([400, 401, 402, 403, 404, 408, 413, 429, 500, 502, 503, 504, 529].map(errorTypeForStatus)).toEqual([
      'invalid_request', 'authentication', 'permission', 'permission', 'not_found', 'timeout', 'invalid_request', 'rate_limit',
      'server', 'server', 'overloaded', 'timeout', 'overloaded',
    ]);
    expect(retryAfterSeconds({ 'retry-after': '5' })).toBe(5);
    expect(retryAfterSeconds({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }, Date.parse('Wed, 21 Oct 2015 07:27:00 GMT'))).toBe(60);
    expect(retryAfterSeconds({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterSeconds(undefined)).toBeUndefined();
  });
});
