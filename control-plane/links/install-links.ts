/**
 * Links to the family's apps and pages services (docs/links.md): the routes, the sync job that re-links after a
 * DSN rotation until every peer took the new DSN (and retries the unlinks of deleted projects), and the deploy poller. One call from control-plane/plugin.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import type { Scheduler } from '../../core/scheduler.ts';
import type { SigningKeyRing } from '../identity/signing-key-ring.ts';
import { projectLinks, linkView, type LinkView } from './link-store.ts';
import { LinkService } from './link-service.ts';
import { LinkSync } from './link-sync.ts';
import { LinkRemovals } from './link-removals.ts';
import { deployPollJob } from './deploy-poller.ts';
import { linksRoutes } from './links-routes.ts';
import { Peers } from './peers.ts';

export interface Links {
  /** After a DSN rotation: re-link the project's apps and aliases now; every link with its state. */
  afterRotate(projectId: number): Promise<LinkView[]>;
  /** Before a project is deleted: unlink on the peers now, keep the failures for the links job. */
  unlink: Pick<LinkRemovals, 'unlinkPeers' | 'keepPending' | 'relinkAfterFailedDelete'>;
}

export function installLinks(app: FastifyInstance, ctx: AppContext, parts: { scheduler: Scheduler; ring: SigningKeyRing }): Links {
  const peers = new Peers(ctx);
  const sync = new LinkSync(ctx, peers);
  const removals = new LinkRemovals(ctx, peers);
  linksRoutes(app, new LinkService(ctx, peers, parts.ring));
  parts.scheduler.add(sync.job(removals));
  parts.scheduler.add(deployPollJob(peers));
  app.addHook('onClose', () => peers.close());
  return {
    unlink: removals,
    afterRotate: async (projectId) => {
      await sync.syncProject(projectId);
      return (await projectLinks(ctx.db, projectId)).map(linkView);
    },
  };
}
