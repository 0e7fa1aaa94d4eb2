/**
 * Serves the built web panel (panel/dist, made by `npm run build:panel`, which `npm install` and `npm ci` run) at
 * `/`, same origin as /api/v1 so the session cookie works. Files are read once into memory (with a gzip copy of
 * text files); hashed files under /assets/ are cached for a year, index.html is revalidated (ETag). The panel's own
 * paths (/, /sign-in, /device, /ai/…, /errors/…, /settings/…) answer index.html so a deep link survives a reload; every other path
 * (/api, /v1, /v1beta, /mcp, /healthz, ingest) keeps its own 404. Without a build, the panel's paths answer 503
 * saying how to build it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { svcError } from '../../core/errors.ts';

export const PANEL_DIST = fileURLToPath(new URL('../../panel/dist/', import.meta.url));

/** The client-side routes of the panel (panel/app.tsx); each answers index.html. */
const PAGE_ROUTES = ['/', '/sign-in', '/device', '/ai', '/ai/*', '/errors', '/errors/*', '/settings', '/settings/*'];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

// The panel loads only its own files; uPlot and Preact set element styles from script, hence style-src 'unsafe-inline'.
// The playground may also connect to the gateway's address when it is another origin (SVC_GATEWAY_URL).
const htmlHeaders = (gatewayUrl?: string) => ({
  'content-security-policy': `default-src 'self'; connect-src 'self'${gatewayUrl ? ` ${new URL(gatewayUrl).origin}` : ''}; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'`,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
});

interface PanelFile {
  body: Buffer;
  gzip: Buffer | null;
  type: string;
  etag: string;
}

function readDist(dir: string): Map<string, PanelFile> | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const files = new Map<string, PanelFile>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else {
        const body = readFileSync(full);
        const type = TYPES[extname(e.name)] ?? 'application/octet-stream';
        const text = /^(text\/|application\/json|image\/svg)/.test(type);
        files.set(`/${relative(dir, full).split(sep).join('/')}`, {
          body,
          gzip: text && body.length > 1024 ? gzipSync(body, { level: 9 }) : null,
          type,
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
        });
      }
    }
  };
  walk(dir);
  return files;
}

const NOT_BUILT = 'The web panel is not built. Run `npm install` (or `npm run build:panel`) in the service\'s folder, then reload this page.';

export function servePanel(app: FastifyInstance, opts: { dir?: string; gatewayUrl?: string } = {}): void {
  const dir = opts.dir ?? PANEL_DIST;
  const htmlHead = htmlHeaders(opts.gatewayUrl);
  let files = readDist(dir);

  // A build made after the start is picked up at the next request (no restart needed).
  const load = () => (files ??= readDist(dir));

  const send = (req: FastifyRequest, reply: FastifyReply, f: PanelFile, cache: string) => {
    reply.header('content-type', f.type).header('cache-control', cache).header('etag', f.etag).header('vary', 'accept-encoding');
    if (f.type.startsWith('text/html')) reply.headers(htmlHead);
    else reply.header('x-content-type-options', 'nosniff');
    if (req.headers['if-none-match'] === f.etag) return reply.code(304).send();
    if (f.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(f.gzip);
    return reply.send(f.body);
  };

  const page = async (req: FastifyRequest, reply: FastifyReply) => {
    const index = load()?.get('/index.html');
    if (!index) {
      if (String(req.headers.accept ?? '').includes('text/html')) {
        return reply.code(503).headers(htmlHead).type('text/html; charset=utf-8')
          .send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>svc: panel not built</title><h1>The web panel is not built</h1><p>${NOT_BUILT}</p><p>The API is available under <a href="/api/v1/meta">/api/v1</a>.</p></html>`);
      }
      throw svcError('service_unavailable', NOT_BUILT, { panel: 'not_built' });
    }
    return send(req, reply, index, 'no-cache');
  };
  for (const url of PAGE_ROUTES) app.get(url, { config: { openapi: false } }, page);

  app.get('/assets/*', { config: { openapi: false } }, async (req, reply) => {
    const path = req.url.split('?')[0];
    const f = load()?.get(path);
    if (!f) throw svcError('not_found', `The panel has no file ${path}${files ? '' : ' (the panel is not built)'}.`);
    // Vite puts a content hash in every file name under /assets/: the file never changes.
    return send(req, reply, f, 'public, max-age=31536000, immutable');
  });
}
