/** GET /api/v1/notifications: what a team was told (the outbox), with a delivery summary per event. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { LIST_QUERY, parseListParams } from '../../core/http/list.ts';
import { EVENT_KINDS, type EventKind } from '../../core/outbox.ts';
import { principal } from '../auth-hook.ts';
import { optionalTeamOfRequest } from '../team-of-request.ts';
import { listNotifications } from './notification-service.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { NOTIFICATION_VIEW } from '../webhooks/webhook-schemas.ts';

export function notificationsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/v1/notifications', {
    schema: {
      tags: ['webhooks'],
      summary: 'List the events your teams were told about, newest first, with their webhook deliveries',
      querystring: {
        type: 'object',
        properties: {
          ...LIST_QUERY,
          team: { type: 'string', description: 'Team id or name (or the X-Svc-Team header).' },
          kind: { type: 'string', enum: [...EVENT_KINDS] },
        },
      },
      response: { 200: listOf(NOTIFICATION_VIEW) },
    },
  }, async (req) => {
    const q = req.query as { limit?: string; cursor?: string; kind?: EventKind };
    const page = parseListParams(q, 1);
    const teamId = await optionalTeamOfRequest(ctx.db, req);
    return listNotifications(ctx, principal(req), { teamId, kind: q.kind }, page);
  });
}
