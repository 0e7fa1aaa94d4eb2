/**
 * Refusals made before any route runs, by Node's HTTP parser and timers or by fastify's router, answer in the
 * family's error object (docs/http.md): 431 oversized headers, 400 malformed HTTP and bad URLs, 408 for a request
 * body that trickles in past SVC_REQUEST_BODY_TIMEOUT_MS (1 s here), on every surface, /v1 included. An answer that
 * streams for longer than that timeout is not cut. Raw sockets, because no HTTP client sends such requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeamProject, type Project } from '../errors/support/errors-fixtures.ts';
import { startGatewayEnv, type GatewayEnv } from '../gateway/gateway-env.ts';
import { rawHttp, type RawAnswer } from '../support/raw-http.ts';
import { ADMIN_TOKEN } from '../support/test-server.ts';

let g: GatewayEnv;
beforeAll(async () => {
  g = await startGatewayEnv({ SVC_REQUEST_BODY_TIMEOUT_MS: '1000' });
});
afterAll(async () => g?.close());

function expectErrorObject(a: RawAnswer, status: number, code: string): { code: string; message: string; details: Record<string, unknown> } {
  expect({ status: a.status, type: a.headers['content-type'] }, a.raw.slice(0, 300)).toEqual({ status, type: 'application/json; charset=utf-8' });
  const body = JSON.parse(a.body) as { error: { code: string; message: string; details: Record<string, unknown> } };
  expect(body.error).toMatchObject({ code, message: expect.stringMatching(/^[A-Z].*\.$/), details: expect.any(Object) });
  return body.error;
}

const PATHS = ['/api/v1/teams', '/v1/chat/completions', '/v1/messages', '/api/1/envelope/'];

describe('oversized headers', () => {
  it.each(PATHS)('answers 431 request_headers_too_large on %s', async (path) => {
    const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`;
    const e = expectErrorObject(await rawHttp(g.s.url, { head }), 431, 'request_headers_too_large');
    expect(e.message).toContain('16 KB');
  });

  it('answers 431 for an over-long URL as well', async () => {
    expectErrorObject(await rawHttp(g.s.url, { head: `GET /api/v1/teams?x=${'b'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n` }), 431, 'request_headers_too_large');
  });
});

describe('malformed HTTP', () => {
  it.each([
    ['a bad method', 'G@T /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost x\r\n\r\n'],
    ['a bad version', 'GET /healthz HTTP/9.Z\r\nHost: x\r\n\r\n'],
    ['both Content-Length and chunked', 'POST /api/v1/teams HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a bad chunk size', 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ['not HTTP at all', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n'],
  ])('answers 400 bad_request for %s', async (_name, head) => {
    const e = expectErrorObject(await rawHttp(g.s.url, { head }), 400, 'bad_request');
    expect(e.details.reason).toMatch(/^HPE_/);
  });

  it('answers 400 bad_request for bad percent-encoding in a path, and 400 for an over-long path segment', async () => {
    const bad = await g.s.api('GET', '/api/v1/teams/%E0%A4%A');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('malformed') });
    const long = await g.s.api('GET', `/api/v1/teams/${'t'.repeat(600)}`);
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toMatchObject({ code: 'validation_failed' });
  });
});

describe('a request body that trickles', () => {
  let project: Project;
  beforeAll(async () => {
    project = await createTeamProject(g.s, 'gw');
  });
  /** Credentials each surface accepts, so every route gets as far as reading the body. */
  const auth = (path: string) =>
    path.startsWith('/api/v1') ? `Authorization: Bearer ${ADMIN_TOKEN}` : path.startsWith('/v1') ? `Authorization: Bearer ${g.key}` : `X-Sentry-Auth: Sentry sentry_version=7, sentry_key=${project.public_key}`;
  const ingestPath = (path: string) => path.replace('/api/1/', `/api/${project.id}/`);

  it.each(PATHS)('is cut with 408 request_timeout on %s', async (path) => {
    const head = `POST ${ingestPath(path)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${auth(path)}\r\nContent-Length: 1000\r\n\r\n{"name":`;
    // One byte every 50 ms: 1000 bytes would take 50 s, far past the 1 s timeout.
    const e = expectErrorObject(await rawHttp(g.s.url, { head, pieces: new Array<string>(1000).fill(' '), everyMs: 50 }), 408, 'request_timeout');
    expect(e.message).toContain('SVC_REQUEST_BODY_TIMEOUT_MS');
    expect(e.details).toEqual({ timeout_ms: 1000 });
  });

  it('cuts headers that trickle in the same way', async () => {
    const a = await rawHttp(g.s.url, { head: 'GET /api/v1/teams HTTP/1.1\r\nHost: x\r\n', pieces: new Array<string>(1000).fill('X-Slow: y\r\n'), everyMs: 50 });
    expectErrorObject(a, 408, 'request_timeout');
  });

  it('gets no second answer when the route already refused it before reading the body', async () => {
    // A token that is not an API token is refused as soon as the headers are read.
    const head = 'POST /api/v1/teams HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-a-valid-token-0123456789\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const a = await rawHttp(g.s.url, { head, pieces: new Array<string>(1000).fill(' '), everyMs: 50 });
    expectErrorObject({ ...a, body: a.body.slice(0, Number(a.headers['content-length'])) }, 401, 'invalid_token');
    expect(a.raw.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it('still serves other requests, and takes a slow body that completes in time', async () => {
    expect((await fetch(`${g.s.url}/healthz`)).status).toBe(200);
    const body = '{"name":"slow-team"}';
    const head = `POST /api/v1/teams HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Length: ${body.length}\r\n\r\n`;
    // Three pieces 100 ms apart: slow, but whole well within the timeout.
    const a = await rawHttp(g.s.url, { head, pieces: [body.slice(0, 5), body.slice(5, 12), body.slice(12)], everyMs: 100 });
    expect(a.status, a.raw).toBe(201);
    expect(JSON.parse(a.body)).toMatchObject({ name: 'slow-team' });
  });
});

describe('a streamed answer longer than the request timeout', () => {
  it('is not cut: the timeout bounds receiving the request, not sending the answer', async () => {
    g.chat.script({ slow: { delayMs: 100, events: 25 } });
    const started = Date.now();
    const res = await fetch(`${g.s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'take your time' }] }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    // The stream lasted past the 1 s request timeout and ended normally.
    expect(Date.now() - started).toBeGreaterThan(1000);
    expect(text).toContain('word24');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });
});
