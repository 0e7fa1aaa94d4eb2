/** Builds a node of the given role on an opened context: one fastify app, the role's features, the scheduler. */
import type { FastifyInstance } from 'fastify';
import { randomHex } from '../core/ids.ts';
import type { AppContext } from '../core/context.ts';
import type { Role } from '../core/config.ts';
import { createApp } from '../core/http/create-app.ts';
import { metaRoutes } from '../core/http/meta-routes.ts';
import { metricsRoute } from '../core/metrics/metrics-route.ts';
import { installOpenApi } from '../core/http/openapi.ts';
import { Scheduler } from '../core/scheduler.ts';
import { features, type Feature } from './features.ts';

export interface Server {
  app: FastifyInstance;
  ctx: AppContext;
  scheduler: Scheduler;
  nodeId: string;
  /** Stops accepting, drains queues, stops schedulers, closes pools. */
  close(): Promise<void>;
}

export async function buildServer(ctx: AppContext, role: Role, opts: { schedulerRetryMs?: number; extraFeatures?: Feature[] } = {}): Promise<Server> {
  const nodeId = randomHex(4);
  const app = createApp({
    log: ctx.log, bodyLimit: ctx.config.bodyLimitBytes, trustProxy: ctx.config.trustProxy, requestTimeoutMs: ctx.config.requestBodyTimeoutMs,
    metrics: ctx.metrics.enabled ? ctx.metrics.http : undefined, requestLogSample: ctx.config.requestLogSample,
  });
  await installOpenApi(app, { title: 'svc API', version: ctx.version });
  const scheduler = new Scheduler(ctx, nodeId, opts.schedulerRetryMs);
  const active = [...features(), ...(opts.extraFeatures ?? [])].filter((f) => f.roles.includes(role) || role === 'all');
  metaRoutes(app, ctx, { roles: role === 'all' ? ['proxy', 'control-plane'] : [role], capabilities: active.flatMap((f) => f.capabilities), nodeId });
  metricsRoute(app, ctx);
  for (const f of active) await f.register(app, ctx, scheduler);
  await app.ready();
  if (role !== 'proxy') scheduler.start();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await app.close();
      for (const f of active) await f.drain?.().catch((err) => ctx.log.error({ err, feature: f.name }, 'drain failed'));
      await scheduler.stop();
      await ctx.counters.close();
      await ctx.db.close();
    })());
  return { app, ctx, scheduler, nodeId, close };
}
