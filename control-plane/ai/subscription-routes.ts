/** The subscription-accounts API under /api/v1/accounts: OAuth sign-in and quota refresh (one line in ai-routes.ts). */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { oauthRoutes } from './oauth/oauth-routes.ts';
import { quotaRoutes } from './quota/quota-routes.ts';

export function subscriptionRoutes(app: FastifyInstance, ctx: AppContext): void {
  oauthRoutes(app, ctx);
  quotaRoutes(app, ctx);
}
