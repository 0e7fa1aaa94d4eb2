/**
 * The family's discovery endpoints on every role: /api/v1/meta, /api/v1/health, /healthz, /api/v1/openapi.json.
 *
 * Health is split (docs/operations.md): /healthz answers whether this node can accept and keep requests (what a
 * load balancer should probe), /api/v1/health whether every dependency is up (what monitoring should watch). Both
 * list every check with its status and latency, and answer 503 with Retry-After when their answer is no. The
 * database and counters checks are registered here; features add theirs to ctx.health (e.g. the local journal).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { svcError } from '../errors.ts';
import { openApiDocument } from './openapi.ts';
import { object, STRINGS, OPEN_OBJECT } from './response-schema.ts';

const META_VIEW = object({ name: { type: 'string' }, version: { type: 'string' }, node: { type: 'string' }, roles: STRINGS, capabilities: STRINGS, public_url: { type: 'string' } });
/** Every check by name: ok, and what the check reports (kind, status, latency_ms…). */
const HEALTH_VIEW = object({ status: { type: 'string' }, version: { type: 'string' }, checks: { type: 'object', additionalProperties: OPEN_OBJECT } });

export function metaRoutes(app: FastifyInstance, ctx: AppContext, info: { roles: string[]; capabilities: string[]; nodeId: string }): void {
  app.get('/api/v1/meta', { config: { public: true }, schema: { tags: ['meta'], summary: 'Service name, version and capabilities', response: { 200: META_VIEW } } }, async () => ({
    name: 'svc',
    version: ctx.version,
    node: info.nodeId,
    roles: info.roles,
    capabilities: info.capabilities,
    public_url: ctx.config.publicUrl,
  }));

  ctx.health.add('database', async () => {
    await ctx.db.query('SELECT 1');
    return { ok: true, kind: ctx.db.kind };
  });
  ctx.health.add('counters', async () => ({ ok: await ctx.counters.ping(), kind: ctx.counters.kind }));

  app.get('/api/v1/health', { config: { public: true }, schema: { tags: ['meta'], summary: 'Health of every dependency: database, counters, local journal (503 while one is down)', response: { 200: HEALTH_VIEW } } }, async () => {
    const { ok, checks } = await ctx.health.report();
    if (!ok) throw svcError('service_unavailable', 'The service is not healthy: a dependency does not answer.', { checks }, { 'retry-after': '1' });
    return { status: 'ok', version: ctx.version, checks };
  });
  app.get('/healthz', { config: { public: true, openapi: false } }, async () => {
    const { ok, keepsRequests, checks } = await ctx.health.report();
    if (!keepsRequests) throw svcError('service_unavailable', 'This node cannot accept and keep requests right now.', { checks }, { 'retry-after': '1' });
    return { status: ok ? 'ok' : 'degraded', version: ctx.version, checks };
  });

  app.get('/api/v1/openapi.json', { config: { public: true, openapi: false } }, async () => openApiDocument(app, ctx.config.publicUrl));
}
