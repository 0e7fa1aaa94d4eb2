/** The family's discovery endpoints on every role: /api/v1/meta, /api/v1/health, /healthz, /api/v1/openapi.json. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { svcError } from '../errors.ts';

async function timed(fn: () => Promise<unknown>): Promise<{ ok: boolean; latency_ms: number; error?: string }> {
  const t = performance.now();
  try {
    const ok = await Promise.race([fn().then((v) => v !== false), new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref())]);
    return { ok, latency_ms: Math.round((performance.now() - t) * 10) / 10, ...(ok ? {} : { error: 'no answer within 2 s' }) };
  } catch (e) {
    return { ok: false, latency_ms: Math.round(performance.now() - t), error: (e as Error).message };
  }
}

export function metaRoutes(app: FastifyInstance, ctx: AppContext, info: { roles: string[]; capabilities: string[]; nodeId: string }): void {
  app.get('/api/v1/meta', { config: { public: true }, schema: { tags: ['meta'], summary: 'Service name, version and capabilities' } }, async () => ({
    name: 'svc',
    version: ctx.version,
    node: info.nodeId,
    roles: info.roles,
    capabilities: info.capabilities,
    public_url: ctx.config.publicUrl,
  }));

  const health = async () => {
    const [database, redis] = await Promise.all([
      timed(() => ctx.db.query('SELECT 1')),
      timed(() => ctx.counters.ping()),
    ]);
    const checks = { database: { ...database, kind: ctx.db.kind }, counters: { ...redis, kind: ctx.counters.kind } };
    if (!database.ok || !redis.ok) throw svcError('service_unavailable', 'The service is not healthy: a dependency does not answer.', { checks });
    return { status: 'ok', version: ctx.version, checks };
  };
  app.get('/api/v1/health', { config: { public: true }, schema: { tags: ['meta'], summary: 'Health of the database and counters (503 when not healthy)' } }, health);
  app.get('/healthz', { config: { public: true, openapi: false } }, health);

  app.get('/api/v1/openapi.json', { config: { public: true, openapi: false } }, async () =>
    app.openapi.document({ title: 'svc API', version: ctx.version, serverUrl: ctx.config.publicUrl }),
  );
}
