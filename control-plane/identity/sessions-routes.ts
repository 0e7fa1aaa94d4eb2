/**
 * The caller's sign-in sessions (`svc login` on each machine), to end one left on a lost or shared machine:
 *   GET    /api/v1/auth/sessions        live sessions, newest first: client, scope, last refresh, `current`
 *   DELETE /api/v1/auth/sessions/{id}   ends it (write scope): its refresh and access tokens stop on every node
 * Sessions are the user's own: nobody else's are listed or ended here (a superuser removes a user instead).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { scopeAllows } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { svcError } from '../../core/errors.ts';
import { LIST_QUERY, listEnvelope, parseListParams } from '../../core/http/list.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { principal } from '../auth-hook.ts';
import { SESSION_VIEW } from './identity-schemas.ts';
import { revokeSession } from './session-state.ts';

interface SessionRow {
  id: string;
  client_name: string;
  scope: string;
  created_at: Date;
  expires_at: Date;
  last_refreshed_at: Date | null;
}

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;

export function sessionsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const view = (current: string | undefined) => (r: SessionRow) => ({
    id: r.id, client_name: r.client_name, scope: r.scope, current: r.id === current,
    created_at: rfc3339(r.created_at), last_refreshed_at: rfc3339(r.last_refreshed_at), expires_at: rfc3339(r.expires_at),
  });

  app.get('/api/v1/auth/sessions', {
    schema: { tags: ['identity'], summary: 'Your sign-in sessions (svc login), newest first', querystring: { type: 'object', properties: LIST_QUERY }, response: { 200: listOf(SESSION_VIEW) } },
  }, async (req) => {
    const p = principal(req);
    if (!p.userId) return { items: [], next_cursor: null };
    const page = parseListParams(req.query as Record<string, string>, 2);
    const params: unknown[] = [page.limit + 1, p.userId, new Date(ctx.clock.now())];
    const after = page.after ? ` AND (s.created_at, s.id) < ($${params.push(page.after[0])}::timestamptz, $${params.push(page.after[1])})` : '';
    const r = await ctx.db.query<SessionRow>(
      `SELECT s.id, s.client_name, s.scope, s.created_at, s.expires_at,
              (SELECT max(t.created_at) FROM refresh_tokens t WHERE t.session_id = s.id AND t.created_at > s.created_at) AS last_refreshed_at
         FROM auth_sessions s WHERE s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > $3${after}
        ORDER BY s.created_at DESC, s.id DESC LIMIT $1`,
      params,
    );
    return listEnvelope(r.rows, page.limit, (x) => [new Date(x.created_at).toISOString(), x.id], view(p.sessionId));
  });

  app.delete('/api/v1/auth/sessions/:id', {
    schema: { tags: ['identity'], summary: 'End one of your sign-in sessions at once, on every node', params: ID, response: { 200: SESSION_VIEW } },
  }, async (req) => {
    const p = principal(req);
    if (!scopeAllows(p.scope, 'write')) throw svcError('insufficient_scope', 'Ending a session needs write scope.');
    const id = (req.params as { id: string }).id;
    const r = await ctx.db.query<SessionRow>(
      `SELECT id, client_name, scope, created_at, expires_at, NULL AS last_refreshed_at FROM auth_sessions
        WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
      [id, p.userId],
    );
    if (!r.rows[0]) throw svcError('not_found', 'You have no live sign-in session with this id.');
    await revokeSession(ctx, id, 'ended_by_user');
    return view(p.sessionId)(r.rows[0]);
  });
}
