/**
 * /api/v1/projects (minimal management; keys, settings and deletion come with the full projects API):
 * create (returns the project with its DSN), list, show. Project ids are numeric because SDKs require it.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { readableTeams, requireTeam } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { randomHex } from '../../core/ids.ts';
import { LIST_QUERY, listEnvelope, parseListParams } from '../../core/http/list.ts';
import { CLIENT_KEYS_CACHE, PROJECTS_CACHE } from '../../core/project-caches.ts';
import { principal } from '../auth-hook.ts';
import { optionalTeamOfRequest, requireTeamOfRequest } from '../team-of-request.ts';
import { PROJECT_COLUMNS, parseNumericId, projectView, slugify, type ProjectRow } from './project-view.ts';

const SLUG = '^(?!-)[a-z0-9-]{1,50}(?<!-)$';

const CREATE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    slug: { type: 'string', pattern: SLUG, description: 'Lowercase letters, digits and hyphens; default: from the name.' },
    platform: { type: 'string', maxLength: 64 },
    events_per_minute: { type: 'integer', minimum: 0, maximum: 10_000_000, description: 'Accepted events per minute (default 600).' },
    spike_threshold: { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'Events of one issue per hour that make a spike (default 100).' },
    scrub_keys: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 }, description: 'Extra keys to scrub, beside the built-in list.' },
    retention_days: { type: 'integer', minimum: 1, maximum: 3650, description: 'Days events are kept (default 30).' },
  },
} as const;

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;

interface CreateBody {
  name: string;
  slug?: string;
  platform?: string;
  events_per_minute?: number;
  spike_threshold?: number;
  scrub_keys?: string[];
  retention_days?: number;
}

/** A project the caller may read, or project_not_found (also when it exists in a team the caller is not in). */
export async function readableProject(ctx: AppContext, req: Parameters<typeof principal>[0], rawId: string): Promise<ProjectRow> {
  const id = parseNumericId(rawId);
  if (id === undefined) throw svcError('invalid_project_id', `Project ids are numeric; "${rawId.slice(0, 40)}" is not one.`);
  const r = await ctx.db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = $1`, [id]);
  const row = r.rows[0];
  const p = principal(req);
  if (!row || (!p.isSuperuser && !p.teams.has(row.team_id))) throw svcError('project_not_found', `The project ${id} does not exist.`);
  requireTeam(p, row.team_id, 'read');
  return row;
}

export function projectsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/v1/projects', {
    schema: { tags: ['projects'], summary: 'Create an error-tracking project; the answer carries its DSN', body: CREATE_BODY },
  }, async (req, reply) => {
    const teamId = await requireTeamOfRequest(ctx.db, req);
    requireTeam(principal(req), teamId, 'write');
    const body = req.body as CreateBody;
    const slug = body.slug ?? slugify(body.name);
    const publicKey = randomHex(16);
    const row = await ctx.db.tx(async (q) => {
      const r = await q.query<{ id: number }>(
        `INSERT INTO projects (team_id, name, slug, platform, events_per_minute, spike_threshold, scrub_keys, retention_days)
         VALUES ($1, $2, $3, $4, COALESCE($5, 600), COALESCE($6, 100), COALESCE($7::text[], '{}'), COALESCE($8, 30))
         ON CONFLICT (team_id, slug) DO NOTHING RETURNING id`,
        [teamId, body.name, slug, body.platform ?? null, body.events_per_minute ?? null, body.spike_threshold ?? null, body.scrub_keys ?? null, body.retention_days ?? null],
      );
      if (!r.rows[0]) throw svcError('conflict', `The team already has a project with the slug "${slug}".`, { slug });
      await q.query('INSERT INTO project_keys (public_key, project_id) VALUES ($1, $2)', [publicKey, r.rows[0].id]);
      return (await q.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = $1`, [r.rows[0].id])).rows[0];
    });
    // A node may hold a negative answer for this project id or key from before it existed.
    await ctx.caches.invalidate(PROJECTS_CACHE, String(row.id));
    await ctx.caches.invalidate(CLIENT_KEYS_CACHE, publicKey);
    return reply.code(201).send(projectView(row, ctx.config.publicUrl));
  });

  app.get('/api/v1/projects', {
    schema: { tags: ['projects'], summary: 'List the projects you can see (narrow with X-Svc-Team or team)', querystring: { type: 'object', properties: { ...LIST_QUERY, team: { type: 'string' } } } },
  }, async (req) => {
    const p = principal(req);
    const { limit, after } = parseListParams(req.query as Record<string, string>, 1);
    const team = await optionalTeamOfRequest(ctx.db, req);
    if (team) requireTeam(p, team, 'read');
    const visible = readableTeams(p);
    const params: unknown[] = [limit + 1];
    const where: string[] = [];
    if (team) where.push(`p.team_id = $${params.push(team)}`);
    if (visible) where.push(`p.team_id = ANY($${params.push(visible)})`);
    if (after) where.push(`p.id > $${params.push(Number(after[0]))}`);
    const r = await ctx.db.query<ProjectRow>(
      `SELECT ${PROJECT_COLUMNS} FROM projects p ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY p.id LIMIT $1`,
      params,
    );
    return listEnvelope(r.rows, limit, (row) => [row.id], (row) => projectView(row, ctx.config.publicUrl));
  });

  app.get('/api/v1/projects/:id', { schema: { tags: ['projects'], summary: 'Show a project and its DSN', params: ID } }, async (req) => {
    const row = await readableProject(ctx, req, (req.params as { id: string }).id);
    return projectView(row, ctx.config.publicUrl);
  });
}
