/** /api/v1/users (superusers manage users) and /api/v1/users/me. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { requireSuperuser } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { LIST_QUERY, listEnvelope, parseListParams } from '../../core/http/list.ts';
import { principal } from '../auth-hook.ts';
import { createUser, userView, type UserRow } from './user-service.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { ME_VIEW, USER_VIEW } from './identity-schemas.ts';

export function usersRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/v1/users', {
    schema: {
      tags: ['identity'],
      summary: 'Create a user (superusers)',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['username', 'password'],
        properties: {
          username: { type: 'string', pattern: '^[a-zA-Z0-9._-]{1,64}$' },
          email: { type: 'string', format: 'email' },
          password: { type: 'string', minLength: 8, maxLength: 200 },
          is_superuser: { type: 'boolean', default: false },
        },
      },
      response: { 201: USER_VIEW },
    },
  }, async (req, reply) => {
    requireSuperuser(principal(req));
    const b = req.body as { username: string; email?: string; password: string; is_superuser: boolean };
    const u = await createUser(ctx.db, { username: b.username, email: b.email, password: b.password, isSuperuser: b.is_superuser });
    return reply.code(201).send(userView(u));
  });

  app.get('/api/v1/users', { schema: { tags: ['identity'], summary: 'List users (superusers)', querystring: { type: 'object', properties: LIST_QUERY }, response: { 200: listOf(USER_VIEW) } } }, async (req) => {
    requireSuperuser(principal(req), 'read');
    const { limit, after } = parseListParams(req.query as Record<string, string>, 1);
    const r = await ctx.db.query<UserRow>(
      `SELECT * FROM users ${after ? 'WHERE username > $2' : ''} ORDER BY username LIMIT $1`,
      after ? [limit + 1, after[0]] : [limit + 1],
    );
    return listEnvelope(r.rows, limit, (u) => [u.username], userView);
  });

  app.get('/api/v1/users/me', { schema: { tags: ['identity'], summary: 'The calling user, with teams and roles', response: { 200: ME_VIEW } } }, async (req) => {
    const p = principal(req);
    if (!p.userId) return { id: null, username: 'admin-token', is_superuser: true, scope: p.scope, teams: [] };
    const r = await ctx.db.query<UserRow>('SELECT * FROM users WHERE id = $1', [p.userId]);
    if (!r.rows[0]) throw svcError('not_found');
    const teams = await ctx.db.query<{ id: string; name: string; role: string }>(
      'SELECT t.id, t.name, m.role FROM memberships m JOIN teams t ON t.id = m.team_id WHERE m.user_id = $1 ORDER BY t.name',
      [p.userId],
    );
    return { ...userView(r.rows[0]), scope: p.scope, teams: teams.rows };
  });
}
