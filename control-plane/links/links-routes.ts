/**
 * /api/v1/projects/{id}/links: a project's links to apps (the apps service) and pages aliases (the pages service),
 * with their state; PUT links, DELETE unlinks (docs/links.md). link-service.ts holds the rules.
 */
import type { FastifyInstance } from 'fastify';
import { listOf } from '../../core/http/response-schema.ts';
import { principal } from '../auth-hook.ts';
import type { LinkKind } from './link-kinds.ts';
import type { LinkService } from './link-service.ts';
import { LINK_ALIAS_BODY, LINK_APP_BODY, LINK_VIEW, PROJECT_ID_TARGET } from './links-schemas.ts';

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const PATHS: Record<LinkKind, { segment: string; what: string; body: object }> = {
  app: { segment: 'apps', what: 'an app of the apps service (it gets CLIENT_DSN from its next deploy)', body: LINK_APP_BODY },
  alias: { segment: 'aliases', what: 'a pages alias (every HTML page gets the reporting script)', body: LINK_ALIAS_BODY },
};

export function linksRoutes(app: FastifyInstance, links: LinkService): void {
  app.get('/api/v1/projects/:id/links', {
    schema: { tags: ['projects'], summary: "List a project's links to apps and pages aliases, with their state", params: ID, response: { 200: listOf(LINK_VIEW) } },
  }, async (req) => links.list(principal(req), (req.params as { id: string }).id));

  for (const [kind, p] of Object.entries(PATHS) as [LinkKind, (typeof PATHS)[LinkKind]][]) {
    const path = `/api/v1/projects/:id/links/${p.segment}/:target`;
    app.put(path, {
      schema: { tags: ['projects'], summary: `Link the project to ${p.what}; the peer is asked first whether you may`, params: PROJECT_ID_TARGET, body: p.body, response: { 200: LINK_VIEW, 201: LINK_VIEW } },
    }, async (req, reply) => {
      const { id, target } = req.params as { id: string; target: string };
      const env = (req.body as { environment?: string } | null)?.environment ?? null;
      const r = await links.link(principal(req), id, kind, target, env);
      return reply.code(r.created ? 201 : 200).send(r.link);
    });
    app.delete(path, {
      schema: { tags: ['projects'], summary: `Unlink ${p.what.replace(/ \(.*\)$/, '')}: the peer removes it; releases stay`, params: PROJECT_ID_TARGET, response: { 200: LINK_VIEW } },
    }, async (req) => {
      const { id, target } = req.params as { id: string; target: string };
      return links.unlink(principal(req), id, kind, target);
    });
  }
}
