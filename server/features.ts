/**
 * The features each role mounts. The entry point is the only place that wires proxy/, ingest/ and control-plane/
 * together; each feature registers its routes on the app and may add background jobs to the scheduler.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context.ts';
import type { Role } from '../core/config.ts';
import type { Scheduler } from '../core/scheduler.ts';
import { controlPlanePlugin } from '../control-plane/plugin.ts';
import { createGateway, type Gateway } from '../proxy/gateway.ts';
import { gatewayPlugin } from '../proxy/gateway-plugin.ts';
import { createLimits, type Limits } from '../proxy/limits/create-limit-guard.ts';
import { quotaRoutes } from '../control-plane/usage/quota-routes.ts';
import { createIngest, type Ingest } from '../ingest/ingest-plugin.ts';
import { subscriptionJobs } from '../control-plane/ai/quota/subscription-jobs.ts';
import { servePanel } from '../control-plane/panel/serve-panel.ts';
import { lostCallsJob } from '../control-plane/usage/close-lost-calls.ts';

export interface Feature {
  name: string;
  roles: readonly Role[];
  capabilities: readonly string[];
  register(app: FastifyInstance, ctx: AppContext, scheduler: Scheduler): Promise<void> | void;
  /** Drains queues on shutdown (after the server stops accepting). */
  drain?(): Promise<void>;
}

export function features(): Feature[] {
  let gateway: Gateway | undefined;
  let limits: Limits | undefined;
  let ingest: Ingest | undefined;
  return [
    {
      name: 'control-plane',
      roles: ['all', 'control-plane'],
      capabilities: ['identity', 'teams', 'tokens', 'webhooks', 'notifications', 'search', 'mcp', 'openapi'],
      register: async (app, ctx, scheduler) => {
        await app.register(controlPlanePlugin(ctx, scheduler));
      },
    },
    // The web panel (panel/dist) at /, same origin as /api/v1 for the session cookie.
    { name: 'panel', roles: ['all', 'control-plane'], capabilities: ['panel'], register: (app, ctx) => servePanel(app, { gatewayUrl: ctx.config.gatewayUrl }) },
    {
      // Quota polling, pause resumption and token refresh of subscription accounts (routes are in control-plane/ai).
      name: 'subscription-accounts',
      roles: ['all', 'control-plane'],
      capabilities: ['subscription-accounts'],
      register: (_app, _ctx, scheduler) => {
        for (const job of subscriptionJobs()) scheduler.add(job);
      },
    },
    {
      // Streamed gateway calls of nodes that died mid-stream, recorded from their open rows (docs/operations.md).
      name: 'usage-open-calls',
      roles: ['all', 'control-plane'],
      capabilities: [],
      register: (_app, ctx, scheduler) => scheduler.add(lostCallsJob(ctx.config.openCallSweepMs)),
    },
    {
      name: 'ingest',
      roles: ['all', 'proxy'],
      capabilities: ['errors-ingest'],
      register: async (app, ctx) => {
        ingest = createIngest(ctx);
        await app.register(ingest.plugin);
      },
      drain: async () => ingest?.drain(),
    },
    {
      // GET /api/v1/quota is authorized by a gateway key, not an API token: mounted beside the control plane's auth.
      name: 'ai-quota',
      roles: ['all', 'control-plane'],
      capabilities: ['ai-quota'],
      register: (app, ctx) => quotaRoutes(app, ctx),
    },
    {
      name: 'gateway',
      roles: ['all', 'proxy'],
      capabilities: ['ai-gateway'],
      register: async (app, ctx, scheduler) => {
        limits = createLimits(ctx);
        await limits.start();
        gateway = createGateway(ctx, { limits: limits.guard, nodeId: scheduler.nodeId });
        await app.register(gatewayPlugin(gateway));
      },
      drain: async () => {
        await gateway?.drain();
        await limits?.drain();
      },
    },
  ];
}
