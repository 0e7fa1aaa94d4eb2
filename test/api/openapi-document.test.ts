/**
 * The OpenAPI document at /api/v1/openapi.json: valid OpenAPI 3.1 (checked by @readme/openapi-parser against the
 * specification's schema), and every /api/v1 operation describes its parameters, its request body and a success
 * answer with a schema, besides the error object as `default`.
 */
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';

interface Operation {
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  security?: unknown[];
}
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };

let s: TestServer;
let doc: Doc;
beforeAll(async () => {
  s = await startTestServer();
  const res = await s.api('GET', '/api/v1/openapi.json', undefined, { authorization: '' });
  expect(res.statusCode).toBe(200);
  doc = res.json() as Doc;
});
afterAll(async () => s?.close());

const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, op })));

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // The parser dereferences in place: give it a copy.
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('describes only /api/v1, every operation with a success answer schema and the error object', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(70);
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/v1/'))).toEqual([]);
    const withoutSuccess = ops.filter(({ op }) => !Object.entries(op.responses).some(([code, r]) => /^2\d\d$/.test(code) && r.content?.['application/json']?.schema));
    expect(withoutSuccess.map((o) => o.name)).toEqual([]);
    const withoutError = ops.filter(({ op }) => !op.responses.default);
    expect(withoutError.map((o) => o.name)).toEqual([]);
  });

  it('describes request bodies and keeps public routes free of credentials', () => {
    const post = doc.paths['/api/v1/keys'].post;
    expect(post.requestBody?.content['application/json'].schema).toMatchObject({ required: ['name'], properties: { name: { type: 'string' } } });
    expect(doc.paths['/api/v1/meta'].get.security).toEqual([]);
    expect(doc.paths['/api/v1/keys'].get.security).toBeUndefined();
  });
});
