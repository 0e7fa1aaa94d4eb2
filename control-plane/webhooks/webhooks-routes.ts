/**
 * /api/v1/webhooks: a team's webhooks (team from X-Svc-Team or ?team= on create; lists span the teams you can read
 * unless narrowed), a test delivery, and each webhook's deliveries with their attempts. docs/webhooks.md.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { LIST_QUERY, parseListParams } from '../../core/http/list.ts';
import { principal } from '../auth-hook.ts';
import { optionalTeamOfRequest, requireTeamOfRequest } from '../team-of-request.ts';
import { DELIVERY_STATES, listDeliveries, type DeliveryState } from './delivery-service.ts';
import { createWebhook, deleteWebhook, listWebhooks, loadWebhook, testWebhook, webhookView, WEBHOOK_EVENTS } from './webhook-service.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { CREATED_WEBHOOK, DELIVERY_VIEW, WEBHOOK_TEST_SENT, WEBHOOK_VIEW } from './webhook-schemas.ts';

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const TEAM_QUERY = { team: { type: 'string', description: 'Team id or name (or the X-Svc-Team header).' } } as const;

export function webhooksRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/v1/webhooks', {
    schema: {
      tags: ['webhooks'],
      summary: "Create a team webhook (team admins); the signing secret is in the answer once",
      querystring: { type: 'object', properties: TEAM_QUERY },
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['url'],
        properties: {
          url: { type: 'string', minLength: 1, maxLength: 4096, description: 'Absolute http or https URL that receives POSTs.' },
          events: { type: 'array', minItems: 1, maxItems: 64, items: { type: 'string', enum: [...WEBHOOK_EVENTS] }, default: ['*'], description: 'Event kinds to receive; * for all.' },
        },
      },
      response: { 201: CREATED_WEBHOOK },
    },
  }, async (req, reply) => {
    const teamId = await requireTeamOfRequest(ctx.db, req);
    const body = req.body as { url: string; events: string[] };
    return reply.code(201).send(await createWebhook(ctx, principal(req), teamId, body));
  });

  app.get('/api/v1/webhooks', {
    schema: { tags: ['webhooks'], summary: 'List the webhooks of the teams you can read', querystring: { type: 'object', properties: { ...LIST_QUERY, ...TEAM_QUERY } }, response: { 200: listOf(WEBHOOK_VIEW) } },
  }, async (req) => {
    const page = parseListParams(req.query as Record<string, string>, 2);
    const teamId = await optionalTeamOfRequest(ctx.db, req);
    return listWebhooks(ctx, principal(req), { teamId }, page);
  });

  app.get('/api/v1/webhooks/:id', { schema: { tags: ['webhooks'], summary: 'Show a webhook', params: ID, response: { 200: WEBHOOK_VIEW } } }, async (req) =>
    webhookView(await loadWebhook(ctx, principal(req), (req.params as { id: string }).id, 'read')),
  );

  app.delete('/api/v1/webhooks/:id', { schema: { tags: ['webhooks'], summary: 'Delete a webhook and its deliveries (team admins)', params: ID, response: { 200: WEBHOOK_VIEW } } }, async (req) =>
    deleteWebhook(ctx, principal(req), (req.params as { id: string }).id),
  );

  app.post('/api/v1/webhooks/:id/test', {
    schema: { tags: ['webhooks'], summary: 'Send a webhook.test event to this webhook (team admins)', params: ID, response: { 202: WEBHOOK_TEST_SENT } },
  }, async (req, reply) => reply.code(202).send(await testWebhook(ctx, principal(req), (req.params as { id: string }).id)));

  app.get('/api/v1/webhooks/:id/deliveries', {
    schema: {
      tags: ['webhooks'],
      summary: "List a webhook's deliveries, newest first, with every attempt",
      params: ID,
      querystring: { type: 'object', properties: { ...LIST_QUERY, state: { type: 'string', enum: [...DELIVERY_STATES] } } },
      response: { 200: listOf(DELIVERY_VIEW) },
    },
  }, async (req) => {
    const q = req.query as { limit?: string; cursor?: string; state?: DeliveryState };
    return listDeliveries(ctx, principal(req), (req.params as { id: string }).id, { state: q.state }, parseListParams(q, 2));
  });
}
