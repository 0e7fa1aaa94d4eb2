/**
 * CORS for the web panel's playground on the gateway's /v1 and /v1beta paths, when the panel is served from another
 * origin than the gateway (split roles: SVC_PANEL_ORIGIN on the proxy nodes; docs/panel.md). Only that origin is
 * allowed, without credentials (the playground sends a short-lived key in a header, never a cookie). A preflight
 * answers 204; the answer's X-Svc-* headers and Retry-After are readable by the page. Not registered at all when
 * the variable is unset, so other gateway calls pay nothing.
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 */
import type { FastifyInstance } from 'fastify';

const EXPOSED = 'X-Svc-Model, X-Svc-Warning, X-Svc-Compression, X-Svc-Session, X-Svc-Token-Count, Retry-After';
const ALLOWED_HEADERS = 'authorization, x-api-key, x-goog-api-key, content-type, anthropic-version, anthropic-beta, x-svc-compress, x-svc-session';

export function panelCors(app: FastifyInstance, origin: string): void {
  app.addHook('onRequest', (req, reply, done) => {
    // On the raw response: streamed answers write their head themselves, and writeHead keeps these.
    reply.raw.setHeader('vary', 'origin');
    if (req.headers.origin === origin) {
      reply.raw.setHeader('access-control-allow-origin', origin);
      reply.raw.setHeader('access-control-expose-headers', EXPOSED);
    }
    done();
  });
  app.options('/*', { config: { openapi: false } }, (req, reply) => {
    if (req.headers.origin === origin) {
      reply.header('access-control-allow-methods', 'GET, POST, DELETE').header('access-control-allow-headers', ALLOWED_HEADERS).header('access-control-max-age', '600');
    }
    return reply.code(204).send();
  });
}
