import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../errors.ts';
import { toSvcError } from './reply-error.ts';

type ErrorClass = new (...args: string[]) => Error & { code: string; statusCode?: number };
const fastifyErrors = createRequire(import.meta.url)('fastify/lib/errors.js') as Record<string, ErrorClass>;

describe('toSvcError', () => {
  // Every refusal fastify can make for a request: its error classes with a 4xx status.
  const instance = (E: ErrorClass) => {
    try {
      return new E('a', 'b', 'c');
    } catch {
      return null; // not an error class (fastify's errors module exports a few helpers too)
    }
  };
  const refusals = Object.entries(fastifyErrors)
    .map(([name, E]) => [name, typeof E === 'function' ? instance(E) : null] as const)
    .filter((r): r is readonly [string, Error & { code: string; statusCode: number }] => typeof r[1]?.statusCode === 'number' && r[1].statusCode >= 400 && r[1].statusCode < 500);

  it('knows fastify refusals to audit', () => {
    expect(refusals.map(([name]) => name)).toEqual(expect.arrayContaining(['FST_ERR_CTP_BODY_TOO_LARGE', 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_BAD_URL', 'FST_ERR_MAX_PARAM_LENGTH', 'FST_ERR_NOT_FOUND']));
  });

  it('maps every fastify 4xx refusal to a catalogued 4xx code, never internal_error', () => {
    for (const [name, e] of refusals) {
      const s = toSvcError(e);
      expect(Object.keys(ERRORS), name).toContain(s.code);
      expect(s.status, name).toBeGreaterThanOrEqual(400);
      expect(s.status, name).toBeLessThan(500);
    }
  });

  it('answers 503 with Retry-After when the database cannot be reached, and keeps other database errors internal', () => {
    const unreachable = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      new Error('Connection terminated unexpectedly'),
    ];
    for (const err of unreachable) {
      const s = toSvcError(err);
      expect(s.code, err.message).toBe('service_unavailable');
      expect(s.headers['retry-after'], err.message).toBe('2');
    }
    expect(toSvcError(Object.assign(new Error('duplicate key value'), { code: '23505' })).code).toBe('internal_error');
  });

  it('treats a request that lost its connection as the client going away, not a failure', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(toSvcError(aborted).code).toBe('bad_request');
    // Another connection of ours being reset (a database, an upstream) stays an internal error.
    expect(toSvcError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })).code).toBe('internal_error');
  });

  it('maps other 4xx statuses by status', () => {
    const withStatus = (statusCode: number) => Object.assign(new Error('x'), { statusCode });
    expect([400, 404, 408, 413, 414, 415, 431, 418].map((s) => toSvcError(withStatus(s)).code)).toEqual([
      'validation_failed', 'route_not_found', 'request_timeout', 'payload_too_large', 'validation_failed', 'unsupported_media_type', 'request_headers_too_large', 'bad_request',
    ]);
  });
});
