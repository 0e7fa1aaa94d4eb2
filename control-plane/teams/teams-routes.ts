/**
 * /api/v1/teams: teams, their members with roles, and the team limits superusers set
 * (`ai.keys`, `ai.tokens`, `errors.events`; null or absent = unlimited).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { PRINCIPALS_CACHE } from '../../core/auth/authenticate.ts';
import { requireSuperuser, requireTeam, scopeAllows, TEAM_ROLES, type TeamRole } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { isDnsLabel, newId } from '../../core/ids.ts';
import { rfc3339 } from '../../core/clock.ts';
import { LIST_QUERY, parseListParams } from '../../core/http/list.ts';
import { principal } from '../auth-hook.ts';
import { resolveTeamId } from '../team-of-request.ts';
import { findUserId } from '../identity/user-service.ts';
import { listTeams, teamView, type TeamRow } from './list-teams.ts';
import { removeMembership, setMembership } from './memberships.ts';
import { TEAM_LIMIT_NAMES, TEAM_LIMITS_CACHE, readTeamLimits, type TeamLimits } from '../../core/team-limits.ts';
import { listOf, object } from '../../core/http/response-schema.ts';
import { MEMBER_VIEW, TEAM_LIMITS_VIEW, TEAM_VIEW } from './team-schemas.ts';

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const LIMITS_BODY = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(TEAM_LIMIT_NAMES.map((n) => [n, { type: ['integer', 'null'], minimum: 0, maximum: 1e15 }])),
} as const;

export function teamsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/v1/teams', {
    schema: { tags: ['teams'], summary: 'Create a team; the creator becomes its owner', body: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string' } } }, response: { 201: TEAM_VIEW } },
  }, async (req, reply) => {
    const p = principal(req);
    if (!scopeAllows(p.scope, 'write')) throw svcError('insufficient_scope');
    const { name } = req.body as { name: string };
    if (!isDnsLabel(name)) throw svcError('invalid_dns_label', `The team name "${name}" must be a DNS label: 1 to 63 lowercase letters, digits or hyphens, not starting or ending with a hyphen.`);
    const team = await ctx.db.tx(async (q) => {
      const r = await q.query<TeamRow>('INSERT INTO teams (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING *', [newId(), name]);
      if (!r.rows[0]) throw svcError('conflict', `A team named "${name}" already exists.`);
      if (p.userId) await q.query("INSERT INTO memberships (team_id, user_id, role) VALUES ($1, $2, 'owner')", [r.rows[0].id, p.userId]);
      return r.rows[0];
    });
    if (p.userId) await ctx.caches.invalidate(PRINCIPALS_CACHE);
    return reply.code(201).send(teamView(team));
  });

  app.get('/api/v1/teams', { schema: { tags: ['teams'], summary: 'List the teams you can see', querystring: { type: 'object', properties: LIST_QUERY }, response: { 200: listOf(TEAM_VIEW) } } }, async (req) =>
    listTeams(ctx, principal(req), parseListParams(req.query as Record<string, string>, 1)),
  );

  app.get('/api/v1/teams/:id', { schema: { tags: ['teams'], summary: 'Show a team', params: ID, response: { 200: TEAM_VIEW } } }, async (req) => {
    const id = await resolveTeamId(ctx.db, (req.params as { id: string }).id);
    requireTeam(principal(req), id, 'read');
    const r = await ctx.db.query<TeamRow>('SELECT * FROM teams WHERE id = $1', [id]);
    return teamView(r.rows[0]);
  });

  app.get('/api/v1/teams/:id/limits', { schema: { tags: ['teams'], summary: "Show a team's limits", params: ID, response: { 200: TEAM_LIMITS_VIEW } } }, async (req) => {
    const id = await resolveTeamId(ctx.db, (req.params as { id: string }).id);
    requireTeam(principal(req), id, 'read');
    return readTeamLimits(ctx.db, id);
  });

  app.put('/api/v1/teams/:id/limits', { schema: { tags: ['teams'], summary: "Set a team's limits (superusers); null = unlimited", params: ID, body: LIMITS_BODY, response: { 200: TEAM_LIMITS_VIEW } } }, async (req) => {
    requireSuperuser(principal(req));
    const id = await resolveTeamId(ctx.db, (req.params as { id: string }).id);
    const body = req.body as Record<string, number | null>;
    const limits: TeamLimits = {};
    for (const n of TEAM_LIMIT_NAMES) if (typeof body[n] === 'number') limits[n] = body[n];
    await ctx.db.query('UPDATE teams SET limits = $2 WHERE id = $1', [id, JSON.stringify(limits)]);
    await ctx.caches.invalidate(TEAM_LIMITS_CACHE, id);
    return limits;
  });

  app.get('/api/v1/teams/:id/members', { schema: { tags: ['teams'], summary: 'List members and roles', params: ID, response: { 200: listOf(MEMBER_VIEW) } } }, async (req) => {
    const id = await resolveTeamId(ctx.db, (req.params as { id: string }).id);
    requireTeam(principal(req), id, 'read');
    const r = await ctx.db.query<{ user_id: string; username: string; role: string; created_at: Date }>(
      'SELECT m.user_id, u.username, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.team_id = $1 ORDER BY u.username',
      [id],
    );
    return { items: r.rows.map((m) => ({ user: m.user_id, username: m.username, role: m.role, created_at: rfc3339(m.created_at) })), next_cursor: null };
  });

  app.put('/api/v1/teams/:id/members/:user', {
    schema: { tags: ['teams'], summary: 'Add a member or change their role (team admins; owners for the owner role)', params: { type: 'object', properties: { id: { type: 'string' }, user: { type: 'string' } }, required: ['id', 'user'] }, body: { type: 'object', additionalProperties: false, required: ['role'], properties: { role: { type: 'string', enum: [...TEAM_ROLES] } } }, response: { 200: object({ user: { type: 'string' }, role: { type: 'string' } }) } },
  }, async (req) => {
    const params = req.params as { id: string; user: string };
    const id = await resolveTeamId(ctx.db, params.id);
    const p = principal(req);
    const { role } = req.body as { role: TeamRole };
    requireTeam(p, id, 'manage');
    const userId = await findUserId(ctx.db, params.user);
    await setMembership(ctx, p, id, userId, role);
    return { user: userId, role };
  });

  app.delete('/api/v1/teams/:id/members/:user', {
    schema: { tags: ['teams'], summary: 'Remove a member (team admins; owners to remove an owner)', params: { type: 'object', properties: { id: { type: 'string' }, user: { type: 'string' } }, required: ['id', 'user'] }, response: { 200: object({ removed: { type: 'string', description: 'The user id.' } }) } },
  }, async (req) => {
    const params = req.params as { id: string; user: string };
    const id = await resolveTeamId(ctx.db, params.id);
    const p = principal(req);
    requireTeam(p, id, 'manage');
    const userId = await findUserId(ctx.db, params.user);
    await removeMembership(ctx, p, id, userId);
    return { removed: userId };
  });
}
