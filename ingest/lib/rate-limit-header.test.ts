import { describe, expect, it } from 'vitest';
import { formatRateLimit, formatRateLimits, rateLimitHeaders } from './rate-limit-header.ts';

describe('rate-limit header', () => {
  it('formats one limit as SDKs expect', () => {
    expect(formatRateLimit({ retryAfterSeconds: 60, categories: ['error', 'default'], scope: 'project', reasonCode: 'project_quota' })).toBe('60:error;default:project:project_quota');
  });

  it('leaves the categories empty for all categories and omits a missing or malformed reason', () => {
    expect(formatRateLimit({ retryAfterSeconds: 10, categories: [], scope: 'organization' })).toBe('10::organization');
    expect(formatRateLimit({ retryAfterSeconds: 10, categories: ['error'], scope: 'key', reasonCode: 'Bad Reason:x' })).toBe('10:error:key');
  });

  it('rounds seconds up, at least 1, and de-duplicates categories', () => {
    expect(formatRateLimit({ retryAfterSeconds: 0.2, categories: ['error', 'error'], scope: 'project' })).toBe('1:error:project');
    expect(formatRateLimit({ retryAfterSeconds: 59.01, categories: ['error'], scope: 'project' })).toBe('60:error:project');
    expect(formatRateLimit({ retryAfterSeconds: Number.NaN, categories: ['error'], scope: 'project' })).toBe('60:error:project');
  });

  it('joins several limits with ", "', () => {
    expect(formatRateLimits([
      { retryAfterSeconds: 60, categories: ['error', 'default'], scope: 'project', reasonCode: 'project_events_per_minute' },
      { retryAfterSeconds: 2400, categories: ['transaction'], scope: 'organization' },
    ])).toBe('60:error;default:project:project_events_per_minute, 2400:transaction:organization');
  });

  it('gives Retry-After and both header names with the same value', () => {
    expect(rateLimitHeaders({ retryAfterSeconds: 30, categories: ['error'], scope: 'project', reasonCode: 'team_errors_events' })).toEqual({
      'Retry-After': '30', 'X-Sentry-Rate-Limits': '30:error:project:team_errors_events', 'X-Client-Rate-Limits': '30:error:project:team_errors_events',
    });
    expect(rateLimitHeaders([
      { retryAfterSeconds: 5, categories: ['error'], scope: 'key' },
      { retryAfterSeconds: 90, categories: [], scope: 'organization' },
    ])['Retry-After']).toBe('90');
    expect(rateLimitHeaders([])).toEqual({});
  });
});
