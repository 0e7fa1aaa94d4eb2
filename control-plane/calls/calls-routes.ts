/**
 * /api/v1/calls: kept call bodies (call-bodies.ts), newest first, and one call with its request and answer.
 * Also schedules the jobs that delete expired bodies and stored responses (every 10 minutes, on the scheduler's
 * leader).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { svcError } from '../../core/errors.ts';
import { LIST_QUERY, listEnvelope, parseListParams } from '../../core/http/list.ts';
import type { Scheduler } from '../../core/scheduler.ts';
import { principal } from '../auth-hook.ts';
import { optionalTeamOfRequest } from '../team-of-request.ts';
import { deleteExpiredResponses } from '../../core/ai/stored-responses.ts';
import { CALL_COLUMNS, callView, deleteExpiredCallBodies, readableCallsWhere, type CallRow } from './call-bodies.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { CALL_DETAIL, CALL_SUMMARY } from './call-schemas.ts';

export const CALL_BODIES_EXPIRY_JOB = 'call-bodies-expiry';
export const STORED_RESPONSES_EXPIRY_JOB = 'stored-responses-expiry';

export function callsRoutes(app: FastifyInstance, ctx: AppContext, scheduler: Scheduler): void {
  scheduler.add({
    name: CALL_BODIES_EXPIRY_JOB,
    everyMs: 10 * 60_000,
    run: async (c) => {
      const n = await deleteExpiredCallBodies(c.db, new Date(c.clock.now()));
      if (n > 0) c.log.info({ deleted: n }, 'expired call bodies deleted');
    },
  });
  scheduler.add({
    name: STORED_RESPONSES_EXPIRY_JOB,
    everyMs: 10 * 60_000,
    run: async (c) => {
      const n = await deleteExpiredResponses(c.db, new Date(c.clock.now()));
      if (n > 0) c.log.info({ deleted: n }, 'expired stored responses deleted');
    },
  });

  app.get('/api/v1/calls', {
    schema: {
      tags: ['ai'],
      summary: 'List kept call bodies of the keys you can see, newest first (bodies are kept when a key has log_bodies set)',
      querystring: {
        type: 'object',
        properties: { ...LIST_QUERY, key: { type: 'string', description: 'Only this gateway key (id).' }, team: { type: 'string', description: 'Only this team (id or name).' } },
      },
      response: { 200: listOf(CALL_SUMMARY) },
    },
  }, async (req) => {
    const p = principal(req);
    const q = req.query as { limit?: string; cursor?: string; key?: string };
    const { limit, after } = parseListParams(q, 2);
    const teamId = await optionalTeamOfRequest(ctx.db, req);
    const params: unknown[] = [limit + 1, new Date(ctx.clock.now())];
    const where = ['c.expires_at > $2', readableCallsWhere(p, params)];
    if (teamId) where.push(`c.team_id = $${params.push(teamId)}`);
    if (q.key) where.push(`c.key_id = $${params.push(q.key)}`);
    if (after) where.push(`(c.created_at, c.id) < ($${params.push(after[0])}::timestamptz, $${params.push(after[1])})`);
    const r = await ctx.db.query<CallRow>(
      `SELECT ${CALL_COLUMNS} FROM call_bodies c LEFT JOIN gateway_keys g ON g.id = c.key_id
        WHERE ${where.join(' AND ')} ORDER BY c.created_at DESC, c.id DESC LIMIT $1`,
      params,
    );
    return listEnvelope(r.rows, limit, (c) => [c.created_at.toISOString(), c.id], callView);
  });

  app.get('/api/v1/calls/:id', {
    schema: {
      tags: ['ai'],
      summary: 'One kept call: its request as received and its answer as the client got it (a stream as the assembled answer)',
      params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      response: { 200: CALL_DETAIL },
    },
  }, async (req) => {
    const p = principal(req);
    const id = (req.params as { id: string }).id;
    const params: unknown[] = [id, new Date(ctx.clock.now())];
    const r = await ctx.db.query<CallRow>(
      `SELECT ${CALL_COLUMNS}, c.request, c.response FROM call_bodies c LEFT JOIN gateway_keys g ON g.id = c.key_id
        WHERE c.id = $1 AND c.expires_at > $2 AND ${readableCallsWhere(p, params)}`,
      params,
    );
    if (!r.rows[0]) throw svcError('not_found', `Call ${id} was not found (or its body has expired).`);
    return callView(r.rows[0]);
  });
}
