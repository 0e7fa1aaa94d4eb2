/**
 * /api/v1/projects: create (the answer carries the DSN), list, show, update, delete, and the project's client keys
 * (list; POST rotates the DSN). Project ids are numeric because SDKs require it. project-service.ts and
 * project-keys.ts hold the rules; these routes only read the request.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { LIST_QUERY, parseListParams } from '../../core/http/list.ts';
import { principal } from '../auth-hook.ts';
import { optionalTeamOfRequest, requireTeamOfRequest } from '../team-of-request.ts';
import { CREATE_PROJECT_BODY, UPDATE_PROJECT_BODY, type ProjectInput } from './project-input.ts';
import { listProjectKeys, rotateProjectKey } from './project-keys.ts';
import { createProject, deleteProject, listProjects, loadProject, updateProject, type ProjectUnlink } from './project-service.ts';
import { projectView } from './project-view.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { DELETED_PROJECT, PROJECT_KEY_VIEW, PROJECT_VIEW, ROTATE_KEY_BODY, ROTATED_PROJECT_KEY } from './errors-schemas.ts';

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

/** What the links feature does for projects (links/install-links.ts). */
export interface ProjectLinks {
  /** After a rotation: re-link the project's apps and aliases now; their states (links/link-sync.ts). */
  afterRotate(projectId: number): Promise<unknown[]>;
  /** Before a delete: unlink them on their peers (links/link-removals.ts). */
  unlink: ProjectUnlink;
}

export function projectsRoutes(app: FastifyInstance, ctx: AppContext, links: ProjectLinks): void {
  app.post('/api/v1/projects', {
    schema: { tags: ['projects'], summary: 'Create an error-tracking project in a team; the answer carries its DSN', body: CREATE_PROJECT_BODY, response: { 201: PROJECT_VIEW } },
  }, async (req, reply) => {
    const teamId = await requireTeamOfRequest(ctx.db, req);
    const project = await createProject(ctx, principal(req), teamId, req.body as ProjectInput & { name: string });
    return reply.code(201).send(project);
  });

  app.get('/api/v1/projects', {
    schema: {
      tags: ['projects'],
      summary: 'List the projects you can see (narrow with X-Svc-Team or team)',
      querystring: { type: 'object', properties: { ...LIST_QUERY, team: { type: 'string' }, slug: { type: 'string', maxLength: 50 } } },
      response: { 200: listOf(PROJECT_VIEW) },
    },
  }, async (req) => {
    const q = req.query as { slug?: string };
    const teamId = await optionalTeamOfRequest(ctx.db, req);
    return listProjects(ctx, principal(req), { teamId, slug: q.slug || undefined }, parseListParams(req.query as Record<string, string>, 1));
  });

  app.get('/api/v1/projects/:id', { schema: { tags: ['projects'], summary: 'Show a project and its DSN', params: ID, response: { 200: PROJECT_VIEW } } }, async (req) => {
    return projectView(await loadProject(ctx, principal(req), idOf(req)), ctx.config.publicUrl);
  });

  app.patch('/api/v1/projects/:id', {
    schema: { tags: ['projects'], summary: "Change a project's name, limits, scrub keys or retention", params: ID, body: UPDATE_PROJECT_BODY, response: { 200: PROJECT_VIEW } },
  }, async (req) => updateProject(ctx, principal(req), idOf(req), req.body as ProjectInput));

  app.delete('/api/v1/projects/:id', {
    schema: {
      tags: ['projects'],
      summary: 'Delete a project with its issues and events; its DSNs stop at once; its links to apps and aliases are unlinked on the peers first',
      params: ID,
      response: { 200: DELETED_PROJECT },
    },
  }, async (req) => deleteProject(ctx, principal(req), idOf(req), links.unlink));

  app.get('/api/v1/projects/:id/keys', {
    schema: { tags: ['projects'], summary: "List a project's client keys (DSNs), the active one first", params: ID, querystring: { type: 'object', properties: LIST_QUERY }, response: { 200: listOf(PROJECT_KEY_VIEW) } },
  }, async (req) => listProjectKeys(ctx, principal(req), idOf(req), parseListParams(req.query as Record<string, string>, 2)));

  app.post('/api/v1/projects/:id/keys', {
    schema: { tags: ['projects'], summary: 'Rotate the DSN: a new key; every previous key is refused at once; linked apps and aliases get the new one', params: ID, body: ROTATE_KEY_BODY, response: { 201: ROTATED_PROJECT_KEY } },
  }, async (req, reply) => {
    const rotated = await rotateProjectKey(ctx, principal(req), idOf(req), { restart: (req.body as { restart?: boolean } | null)?.restart === true });
    return reply.code(201).send({ ...rotated, links: await links.afterRotate(rotated.project) });
  });
}
