/**
 * Serving the built panel: content types, cache headers (hashed assets for a year, index.html revalidated with an
 * ETag), gzip, the panel's deep links answering index.html, other paths keeping their JSON 404, and a clear 503
 * when the panel is not built. Runs on a fixture build in a temporary folder, next to a real node's routes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../core/http/create-app.ts';
import { createLogger } from '../../core/logger.ts';
import { servePanel } from '../../control-plane/panel/serve-panel.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="app"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

function fixtureBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-panel-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'index-abc123.css'), 'body{margin:0}');
  return dir;
}

async function appWith(dir: string): Promise<FastifyInstance> {
  const app = createApp({ log: createLogger('silent'), bodyLimit: 1_000_000 });
  servePanel(app, { dir });
  app.get('/api/v1/meta', async () => ({ name: 'svc' }));
  await app.ready();
  return app;
}

describe('serving the built panel', () => {
  let dir: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    dir = fixtureBuild();
    app = await appWith(dir);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers index.html at / and at every deep link of the panel, revalidated by ETag, with a strict CSP', async () => {
    for (const url of ['/', '/sign-in', '/ai', '/ai/keys', '/errors', '/errors/issues/42?tab=events', '/settings/tokens']) {
      const res = await app.inject({ url });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.body).toBe(INDEX);
    }
    const first = await app.inject({ url: '/ai/usage' });
    const again = await app.inject({ url: '/ai/usage', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect((await app.inject({ method: 'HEAD', url: '/ai' })).statusCode).toBe(200);
  });

  it('serves hashed assets with their content type, a year of caching and gzip when asked', async () => {
    const js = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(js.rawPayload).toString()).toBe(SCRIPT);
    const css = await app.inject({ url: '/assets/index-abc123.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['content-encoding']).toBeUndefined();
    expect(css.body).toBe('body{margin:0}');
    const missing = await app.inject({ url: '/assets/index-zzz.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('not_found');
  });

  it('leaves every other path its own JSON 404 and 405', async () => {
    for (const url of ['/api/v1/nope', '/v1/nope', '/v1beta/models', '/mcp/x', '/healthz/x', '/api/7/envelope/', '/nowhere']) {
      const res = await app.inject({ url });
      expect({ url, status: res.statusCode, code: res.json().error.code }).toEqual({ url, status: 404, code: 'not_found' });
    }
    const post = await app.inject({ method: 'POST', url: '/ai/keys' });
    expect(post.statusCode).toBe(405);
  });

  it('says how to build the panel when it is not built, and picks up a build made later', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-panel-none-'));
    const bare = await appWith(empty);
    const html = await bare.inject({ url: '/ai/keys', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(html.statusCode).toBe(503);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.body).toContain('npm run build:panel');
    const json = await bare.inject({ url: '/' });
    expect(json.statusCode).toBe(503);
    expect(json.json().error).toMatchObject({ code: 'service_unavailable', details: { panel: 'not_built' } });
    expect(json.json().error.message).toContain('npm install');
    mkdirSync(join(empty, 'assets'));
    writeFileSync(join(empty, 'index.html'), INDEX);
    expect((await bare.inject({ url: '/' })).body).toBe(INDEX);
    await bare.close();
    rmSync(empty, { recursive: true, force: true });
  });
});

describe('the panel on the node roles', () => {
  let all: TestServer;
  let proxy: TestServer;
  beforeAll(async () => {
    [all, proxy] = await Promise.all([startTestServer(), startTestServer({ role: 'proxy' })]);
  });
  afterAll(async () => {
    await Promise.all([all?.close(), proxy?.close()]);
  });

  it('is mounted by the control plane (and so by npm start), not by proxy nodes', async () => {
    expect((await all.api('GET', '/api/v1/meta')).json().capabilities).toContain('panel');
    expect([200, 503]).toContain((await all.api('GET', '/ai/keys', undefined, { authorization: '' })).statusCode);
    const res = await proxy.api('GET', '/ai/keys', undefined, { authorization: '' });
    expect(res.statusCode).toBe(404);
    expect((await proxy.api('GET', '/api/v1/meta')).json().capabilities).not.toContain('panel');
  });
});
