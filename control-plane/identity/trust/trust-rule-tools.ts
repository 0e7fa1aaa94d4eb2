/**
 * MCP tools for trust rules (docs/identity.md): `list_trust_rules`, `create_trust_rule`, `delete_trust_rule` and
 * `list_trust_exchanges`, each the REST operation itself called in process as the caller (trust-rules-routes.ts),
 * so that scope, team role and every refusal are the API's: creating and deleting need write scope and a team admin.
 */
import { z } from 'zod';
import { defineTool, LIST_ARGS, listOutput, TEAM_ARG } from '../../mcp/mcp-tools.ts';
import { TRUST_EXCHANGE_ITEM, TRUST_RULE_ITEM } from '../../mcp/output-shapes.ts';
import { restPath } from '../../mcp/rest-call.ts';
import { OWNER_CLAIMS } from './trust-conditions.ts';

const RULE_ID = z.string().min(1).max(64).describe('The trust rule id (tr_…).');

export const listTrustRulesTool = defineTool({
  name: 'list_trust_rules',
  title: 'List trust rules',
  description: 'Trust rules of the teams you can read, newest first: which CI jobs (OIDC issuer, audience, claim conditions) may exchange their token for an access token of the team, with what scope and lifetime.',
  readOnly: true,
  input: { ...LIST_ARGS, team: TEAM_ARG },
  output: listOutput(TRUST_RULE_ITEM),
  call: ({ rest }, args) => rest('GET', restPath('trust-rules'), { query: args }),
});

export const createTrustRuleTool = defineTool({
  name: 'create_trust_rule',
  title: 'Create a trust rule',
  description: `Let CI jobs of one repository or project exchange their OIDC token for an access token of a team (RFC 8693), so that they store no secret. One condition must be an exact owner id (${OWNER_CLAIMS.join(', ')}). Team admins, with a write-scoped token of a user.`,
  readOnly: false,
  input: {
    team: z.string().min(1).max(200).describe('Team id or name.'),
    name: z.string().min(1).max(100),
    issuer: z.string().min(1).max(500).describe('The OIDC issuer, e.g. https://token.actions.githubusercontent.com or https://gitlab.com.'),
    conditions: z.record(z.string(), z.string()).describe('Claim → exact value or glob (*, **, ?), all of which must hold, e.g. {"repository_owner_id": "9100", "ref": "refs/heads/main"}.'),
    audience: z.string().min(1).max(500).optional().describe("The job token's aud (default: this service's public URL)."),
    scope: z.enum(['read', 'deploy']).optional().describe('What the access tokens may do (default deploy).'),
    ttl: z.union([z.string().max(20), z.int()]).optional().describe('Lifetime of the access tokens: seconds or a duration, 60 s to 15m (default 15m).'),
  },
  output: TRUST_RULE_ITEM,
  call: ({ rest }, { team, ...body }) => rest('POST', restPath('trust-rules'), { query: { team }, body }),
});

export const deleteTrustRuleTool = defineTool({
  name: 'delete_trust_rule',
  title: 'Delete a trust rule',
  description: 'Delete a trust rule; the access tokens obtained through it stop working at once on every node. Team admins, write scope.',
  readOnly: false,
  destructive: true,
  input: { rule: RULE_ID },
  output: TRUST_RULE_ITEM,
  call: ({ rest }, { rule }) => rest('DELETE', restPath('trust-rules', rule)),
});

export const listTrustExchangesTool = defineTool({
  name: 'list_trust_exchanges',
  title: 'List token exchanges',
  description: "Token exchanges made through trust rules, newest first: the rule, the job's subject, the claims the rule looked at and the access token's id.",
  readOnly: true,
  input: { ...LIST_ARGS, team: TEAM_ARG, rule: RULE_ID.optional().describe('Only the exchanges of this rule.') },
  output: listOutput(TRUST_EXCHANGE_ITEM),
  call: ({ rest }, args) => rest('GET', restPath('trust-exchanges'), { query: args }),
});

export const TRUST_RULE_TOOLS = [listTrustRulesTool, createTrustRuleTool, deleteTrustRuleTool, listTrustExchangesTool];
