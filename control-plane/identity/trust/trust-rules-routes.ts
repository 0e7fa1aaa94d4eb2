/**
 * /api/v1/trust-rules (team admins manage their team's; members read them) and /api/v1/trust-exchanges (every
 * exchange: rule, the claims that matched, the access token's id). docs/identity.md has GitHub and GitLab examples.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../core/context.ts';
import { LIST_QUERY, parseListParams } from '../../../core/http/list.ts';
import { parseTtl } from '../../../core/ttl.ts';
import { principal } from '../../auth-hook.ts';
import { optionalTeamOfRequest, requireTeamOfRequest } from '../../team-of-request.ts';
import type { OidcIssuers } from './oidc-issuers.ts';
import { createRule, deleteRule, listExchanges, listRules, loadRule, ruleView, type NewRule } from './trust-rules.ts';
import { listOf } from '../../../core/http/response-schema.ts';
import { TRUST_EXCHANGE_VIEW, TRUST_RULE_VIEW } from '../identity-schemas.ts';

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const TEAM_QUERY = { team: { type: 'string', description: 'Team id or name (or the X-Svc-Team header).' } } as const;

export function trustRulesRoutes(app: FastifyInstance, ctx: AppContext, issuers: OidcIssuers): void {
  app.post('/api/v1/trust-rules', {
    schema: {
      tags: ['identity'],
      summary: 'Create a trust rule: which CI jobs may exchange their OIDC token for an access token of the team (team admins)',
      querystring: { type: 'object', properties: TEAM_QUERY },
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'issuer', 'conditions'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          issuer: { type: 'string', minLength: 1, maxLength: 500, description: 'The OIDC issuer, e.g. https://token.actions.githubusercontent.com or https://gitlab.com.' },
          audience: { type: 'string', minLength: 1, maxLength: 500, description: "The job token's aud (default: this service's public URL)." },
          conditions: { type: 'object', description: 'Claim → exact value or glob; one of repository_owner_id, repository_id, namespace_id, project_id exactly.' },
          scope: { type: 'string', enum: ['read', 'deploy'], default: 'deploy' },
          ttl: { default: '15m', description: 'Lifetime of the access tokens, 60 s to 15 min.' },
        },
      },
      response: { 201: TRUST_RULE_VIEW },
    },
  }, async (req, reply) => {
    const teamId = await requireTeamOfRequest(ctx.db, req);
    const b = req.body as Omit<NewRule, 'ttl'> & { ttl: unknown };
    const ttl = parseTtl(b.ttl);
    const row = await createRule(ctx, issuers, principal(req), teamId, { ...b, ttl: ttl ?? Infinity });
    return reply.code(201).send(ruleView(row));
  });

  app.get('/api/v1/trust-rules', {
    schema: { tags: ['identity'], summary: 'List the trust rules of the teams you can read', querystring: { type: 'object', properties: { ...LIST_QUERY, ...TEAM_QUERY } }, response: { 200: listOf(TRUST_RULE_VIEW) } },
  }, async (req) => listRules(ctx, principal(req), await optionalTeamOfRequest(ctx.db, req), parseListParams(req.query as Record<string, string>, 2)));

  app.get('/api/v1/trust-rules/:id', { schema: { tags: ['identity'], summary: 'Show a trust rule', params: ID, response: { 200: TRUST_RULE_VIEW } } }, async (req) =>
    ruleView(await loadRule(ctx, principal(req), (req.params as { id: string }).id, 'read')),
  );

  app.delete('/api/v1/trust-rules/:id', {
    schema: { tags: ['identity'], summary: 'Delete a trust rule; the access tokens obtained through it stop working at once (team admins)', params: ID, response: { 200: TRUST_RULE_VIEW } },
  }, async (req) => ruleView(await deleteRule(ctx, principal(req), (req.params as { id: string }).id)));

  app.get('/api/v1/trust-exchanges', {
    schema: {
      tags: ['identity'],
      summary: 'List the token exchanges made through trust rules, newest first',
      querystring: { type: 'object', properties: { ...LIST_QUERY, ...TEAM_QUERY, rule: { type: 'string', description: 'Only the exchanges of this rule.' } } },
      response: { 200: listOf(TRUST_EXCHANGE_VIEW) },
    },
  }, async (req) => {
    const q = req.query as Record<string, string>;
    return listExchanges(ctx, principal(req), { teamId: await optionalTeamOfRequest(ctx.db, req), ruleId: q.rule }, parseListParams(q, 2));
  });
}
