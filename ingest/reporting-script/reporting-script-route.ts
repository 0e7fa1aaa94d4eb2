/**
 * `GET /js/{key}.js`: the browser reporting script of a client key (public, on the proxy role beside the store
 * endpoint it reports to). Cacheable: `Cache-Control: public, max-age=300` and an ETag (`If-None-Match` → 304), so
 * a rotated key's script goes stale within minutes. An unknown or rotated key answers 404 with a JavaScript comment
 * (the page's <script> tag then runs nothing and the browser console shows the status).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { IngestDeps } from '../ingest-deps.ts';
import { reportingScript } from './reporting-script.ts';

const KEY_FILE = /^([0-9a-f]{32})\.js$/;
const JS = 'text/javascript; charset=utf-8';

function notFound(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .header('content-type', JS)
    .header('cache-control', 'public, max-age=60')
    .send('/* svc errors: not_found: no reporting script for this key (it is unknown or was rotated); use the DSN key shown by GET /api/v1/projects/{id}. */\n');
}

export function reportingScriptRoute(app: FastifyInstance, deps: IngestDeps): void {
  app.get('/js/:file', { config: { openapi: false } }, async (req, reply) => {
    const m = KEY_FILE.exec((req.params as { file: string }).file);
    const record = m ? await deps.lookup.clientKey(m[1]) : null;
    if (!m || !record || !record.active) return notFound(reply);
    const script = reportingScript(deps.ctx.config.publicUrl, record.projectId, m[1]);
    reply
      .header('content-type', JS)
      .header('cache-control', 'public, max-age=300')
      .header('etag', script.etag)
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', 'cross-origin');
    if (req.headers['if-none-match']?.split(',').some((t) => t.trim().replace(/^W\//, '') === script.etag)) return reply.code(304).send();
    return reply.code(200).send(script.body);
  });
}
