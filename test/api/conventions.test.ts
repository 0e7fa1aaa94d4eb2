import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.close());

const expectError = (res: { statusCode: number; json(): unknown }, status: number, code: string) => {
  expect(res.statusCode).toBe(status);
  const body = res.json() as { error: { code: string; message: string; details: unknown } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(/\w/);
  expect(typeof body.error.details).toBe('object');
};

describe('the family conventions', () => {
  it('answers meta with name, version and capabilities', async () => {
    const res = await s.api('GET', '/api/v1/meta', undefined, { authorization: '' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'svc', version: '0.1.0' });
    expect(res.json().capabilities).toContain('identity');
  });

  it('reports health of the database and counters', async () => {
    for (const path of ['/api/v1/health', '/healthz']) {
      const res = await s.api('GET', path, undefined, { authorization: '' });
      expect(res.statusCode).toBe(200);
      expect(res.json().checks.database.ok).toBe(true);
      expect(res.json().checks.counters.ok).toBe(true);
    }
  });

  it('refuses unknown routes with 404 and wrong methods with 405', async () => {
    expectError(await s.api('GET', '/api/v1/nothing-here'), 404, 'not_found');
    const res = await s.api('DELETE', '/api/v1/meta');
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toContain('GET');
  });

  it('refuses missing, malformed and unknown credentials with 401', async () => {
    expectError(await s.api('GET', '/api/v1/teams', undefined, { authorization: '' }), 401, 'unauthenticated');
    expectError(await s.api('GET', '/api/v1/teams', undefined, { authorization: 'Token abc' }), 401, 'invalid_token');
    expectError(await s.api('GET', '/api/v1/teams', undefined, { authorization: 'Bearer tk_nope' }), 401, 'invalid_token');
  });

  it('refuses malformed JSON, wrong types and unknown fields with 400', async () => {
    expectError(await s.api('POST', '/api/v1/teams', '{"name":', { 'content-type': 'application/json' }), 400, 'invalid_json');
    expectError(await s.api('POST', '/api/v1/teams', { name: 5 }), 400, 'validation_failed');
    const res = await s.api('POST', '/api/v1/teams', { name: 'x', colour: 'red' });
    expectError(res, 400, 'validation_failed');
    expect(res.json().error.message).toContain('colour');
  });

  it('refuses other content types with 415 and oversized bodies with 413', async () => {
    expectError(await s.api('POST', '/api/v1/teams', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
    const big = JSON.stringify({ name: 'a'.repeat(33 * 1024 * 1024) });
    expectError(await s.api('POST', '/api/v1/teams', big, { 'content-type': 'application/json' }), 413, 'payload_too_large');
  });

  it('validates names used in host names as DNS labels', async () => {
    expectError(await s.api('POST', '/api/v1/teams', { name: 'Not_A_Label' }), 400, 'invalid_dns_label');
    expectError(await s.api('POST', '/api/v1/teams', { name: '-bad' }), 400, 'invalid_dns_label');
    expect((await s.api('POST', '/api/v1/teams', { name: 'good-name-1' })).statusCode).toBe(201);
  });

  it('pages lists with limit and an opaque cursor', async () => {
    for (let i = 0; i < 5; i++) await s.api('POST', '/api/v1/teams', { name: `page-${i}` });
    const first = await s.api('GET', '/api/v1/teams?limit=2');
    expect(first.statusCode).toBe(200);
    expect(first.json().items).toHaveLength(2);
    const cursor = first.json().next_cursor as string;
    expect(typeof cursor).toBe('string');
    const second = await s.api('GET', `/api/v1/teams?limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(second.json().items[0].name > first.json().items[1].name).toBe(true);
    expectError(await s.api('GET', '/api/v1/teams?limit=0'), 400, 'invalid_limit');
    expectError(await s.api('GET', '/api/v1/teams?limit=201'), 400, 'invalid_limit');
    expectError(await s.api('GET', `/api/v1/teams?cursor=${cursor.slice(0, -2)}xx`), 400, 'invalid_cursor');
    expectError(await s.api('GET', '/api/v1/teams?cursor=garbage'), 400, 'invalid_cursor');
  });

  it('publishes an OpenAPI document generated from the route schemas', async () => {
    const res = await s.api('GET', '/api/v1/openapi.json', undefined, { authorization: '' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/api/v1/teams'].post.requestBody).toBeDefined();
    expect(doc.paths['/api/v1/tokens/{id}'].delete).toBeDefined();
  });
});
