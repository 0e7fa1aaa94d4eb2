/** The AI gateway's management API under /api/v1: gateway keys, provider accounts, model aliases and prices. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { keysRoutes } from './keys-routes.ts';
import { accountsRoutes } from './accounts-routes.ts';
import { aliasesRoutes } from './aliases-routes.ts';
import { pricesRoutes } from './prices-routes.ts';
import { subscriptionRoutes } from './subscription-routes.ts';
import { playgroundRoutes } from './playground-routes.ts';

export function aiRoutes(app: FastifyInstance, ctx: AppContext): void {
  keysRoutes(app, ctx);
  accountsRoutes(app, ctx);
  aliasesRoutes(app, ctx);
  pricesRoutes(app, ctx);
  subscriptionRoutes(app, ctx);
  playgroundRoutes(app, ctx);
}
