/**
 * Links to the family's apps and pages services (docs/links.md): the routes, the sync job that re-links after a
 * DSN rotation until every peer took the new DSN, and the deploy poller. One call from control-plane/plugin.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import type { Scheduler } from '../../core/scheduler.ts';
import type { SigningKeyRing } from '../identity/signing-key-ring.ts';
import { LinkService } from './link-service.ts';
import { linksRoutes } from './links-routes.ts';
import { Peers } from './peers.ts';

export function installLinks(app: FastifyInstance, ctx: AppContext, parts: { scheduler: Scheduler; ring: SigningKeyRing }): void {
  const peers = new Peers(ctx);
  linksRoutes(app, new LinkService(ctx, peers, parts.ring));
  app.addHook('onClose', () => peers.close());
}
