/**
 * GET /metrics: the node's metrics in the Prometheus text format (docs/metrics.md). Each node answers for its own
 * process only, so behind a load balancer every node is scraped at its own address.
 *
 * Who may read it: with SVC_METRICS_TOKEN set, only a request with `Authorization: Bearer <that token>` (whatever
 * the address). Without it, only when the node listens on a loopback address (HOST 127.0.0.1, ::1 or localhost):
 * a node listening beyond loopback answers 403 until the token is set. A dedicated token rather than an API
 * token: the scraper's credential then reads metrics and nothing else, and checking it needs no database.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { svcError } from '../errors.ts';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

const digest = (s: string) => createHash('sha256').update(s).digest();

function authorize(req: FastifyRequest, token: Buffer | undefined, loopback: boolean): void {
  if (token === undefined) {
    if (loopback) return;
    throw svcError('forbidden', 'GET /metrics needs SVC_METRICS_TOKEN when the node listens beyond loopback: set it, then scrape with Authorization: Bearer <token>.');
  }
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m) throw svcError('unauthenticated', 'GET /metrics needs Authorization: Bearer <SVC_METRICS_TOKEN>.');
  if (!timingSafeEqual(digest(m[1]), token)) throw svcError('invalid_token', 'The token is not the metrics token (SVC_METRICS_TOKEN).');
}

export function metricsRoute(app: FastifyInstance, ctx: AppContext): void {
  const metrics = ctx.metrics;
  if (!metrics.enabled) return;
  const token = ctx.config.metricsToken === undefined ? undefined : digest(ctx.config.metricsToken);
  const loopback = LOOPBACK.test(ctx.config.host);
  app.get('/metrics', { config: { public: true, openapi: false } }, async (req, reply) => {
    authorize(req, token, loopback);
    const text = await metrics.render();
    return reply.type(metrics.contentType).send(text);
  });
}
