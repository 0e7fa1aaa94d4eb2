/**
 * Open CORS for the ingest endpoints: browsers report errors from any site. Every answer (errors included)
 * allows any origin and exposes the rate-limit headers; a preflight allows the headers SDKs send.
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 */
import type { FastifyReply } from 'fastify';

export const CORS_ALLOW_HEADERS = [
  'x-sentry-auth', 'x-client-auth', 'authorization', 'content-type', 'content-encoding', 'sentry-trace', 'baggage',
  'x-requested-with', 'origin', 'accept',
].join(', ');

export const CORS_EXPOSE_HEADERS = ['retry-after', 'x-sentry-rate-limits', 'x-client-rate-limits', 'x-sentry-error'].join(', ');

/** Headers every ingest answer carries. */
export function setCorsHeaders(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', CORS_EXPOSE_HEADERS);
}

/** The answer to an OPTIONS preflight. */
export function sendPreflight(reply: FastifyReply): FastifyReply {
  setCorsHeaders(reply);
  reply.header('access-control-allow-methods', 'POST, OPTIONS');
  reply.header('access-control-allow-headers', CORS_ALLOW_HEADERS);
  reply.header('access-control-max-age', '86400');
  return reply.code(204).send();
}
