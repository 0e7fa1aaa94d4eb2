/**
 * /api/v1/projects/{id}/releases: register a release (a `deploy` token suffices: this is what CI does; 201 when
 * the version is new to the project, 200 when it was known), and list them with first/last seen and new issues.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { LIST_QUERY, parseListParams } from '../../core/http/list.ts';
import { principal } from '../auth-hook.ts';
import { listReleases, registerRelease, RELEASE_BODY, type ReleaseInput } from './release-service.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { RELEASE_VIEW } from './errors-schemas.ts';

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

export function releasesRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/v1/projects/:id/releases', {
    schema: { tags: ['releases'], summary: 'Register a release (version, optional ref, url and created_at); deploy scope suffices', params: ID, body: RELEASE_BODY, response: { 200: RELEASE_VIEW, 201: RELEASE_VIEW } },
  }, async (req, reply) => {
    const { release, created } = await registerRelease(ctx, principal(req), idOf(req), req.body as ReleaseInput);
    return reply.code(created ? 201 : 200).send(release);
  });

  app.get('/api/v1/projects/:id/releases', {
    schema: { tags: ['releases'], summary: "A project's releases, newest first, with first/last seen and new issues", params: ID, querystring: { type: 'object', properties: LIST_QUERY }, response: { 200: listOf(RELEASE_VIEW) } },
  }, async (req) => listReleases(ctx, principal(req), idOf(req), parseListParams(req.query as Record<string, string>, 1)));
}
