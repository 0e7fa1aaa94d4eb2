/**
 * svc trust-rules create | list | show | delete | exchanges: which CI jobs may exchange their OIDC token for an
 * access token of a team (/api/v1/trust-rules, /api/v1/trust-exchanges; docs/identity.md).
 */
import { seg } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand, defineGroup } from '../command.ts';
import type { Column } from '../output.ts';
import { LIMIT_OPTION, maxItems } from './limit-option.ts';
import { teamNames } from './team-names.ts';

interface TrustRule {
  id: string;
  team: string;
  name: string;
  issuer: string;
  audience: string;
  conditions: Record<string, string>;
  scope: 'read' | 'deploy';
  ttl: number;
  created_by: string | null;
  disabled: boolean;
  created_at: string;
}

interface Exchange {
  id: string;
  team: string;
  rule: string;
  issuer: string;
  subject: string;
  claims: Record<string, string>;
  token_id: string;
  expires_at: string;
  created_at: string;
}

const describeConditions = (c: Record<string, string>) => Object.entries(c).map(([k, v]) => `${k}=${v}`).join(' ');

const columns = (teamName: (id: string) => string): Column<TrustRule>[] => [
  { title: 'id', value: (r) => r.id },
  { title: 'team', value: (r) => teamName(r.team) },
  { title: 'name', value: (r) => r.name },
  { title: 'issuer', value: (r) => r.issuer },
  { title: 'scope', value: (r) => r.scope },
  { title: 'conditions', value: (r) => describeConditions(r.conditions) },
  { title: 'disabled', value: (r) => r.disabled },
];

const fields = (r: TrustRule): [string, unknown][] => [
  ['id', r.id], ['team', r.team], ['name', r.name], ['issuer', r.issuer], ['audience', r.audience],
  ['conditions', describeConditions(r.conditions)], ['scope', r.scope], ['ttl', `${r.ttl} s`],
  ['created by', r.created_by], ['disabled', r.disabled], ['created', r.created_at],
];

/**
 * `claim=pattern,claim=pattern` (as other list options are written), or a JSON object when a pattern holds a comma.
 * The server checks the rest (claim names, an exact owner id: 400 trust_rule_unbound).
 */
export function parseConditions(raw: string, helpFor: string): Record<string, string> {
  if (raw.trimStart().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new CliError('usage', '--conditions starts with "{" but is not a JSON object; write claim=pattern,claim=pattern or valid JSON.', { helpFor });
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError('usage', '--conditions as JSON must be an object of claim names to patterns.', { helpFor });
    return parsed as Record<string, string>;
  }
  const out: Record<string, string> = {};
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1) throw new CliError('usage', `--conditions takes claim=pattern pairs separated by commas (got "${part}").`, { helpFor });
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  if (Object.keys(out).length === 0) throw new CliError('usage', '--conditions needs at least one claim=pattern, e.g. repository_owner_id=9100.', { helpFor });
  return out;
}

const create = defineCommand({
  name: 'create',
  summary: 'Create a trust rule (team admins): which CI jobs may exchange their OIDC token for an access token',
  description:
    'Create a trust rule of a team. A CI job whose OIDC token comes from --issuer, carries --audience and meets every\n' +
    'condition exchanges it at /oauth/token for an access token of the team (docs/identity.md). One condition must bind\n' +
    'an owner exactly: repository_owner_id or repository_id (GitHub), namespace_id or project_id (GitLab).',
  options: {
    team: { type: 'string', value: 'TEAM', description: 'The team (name or id; default SVC_TEAM).' },
    name: { type: 'string', value: 'NAME', required: true, description: 'What the rule is for, e.g. deploy-main.' },
    issuer: { type: 'string', value: 'URL', required: true, description: 'The OIDC issuer, e.g. https://token.actions.githubusercontent.com or https://gitlab.com.' },
    conditions: { type: 'string', value: 'CLAIM=PATTERN,…', required: true, description: 'Claims the job token must carry: exact values or globs (*, **, ?); or a JSON object.' },
    audience: { type: 'string', value: 'AUD', description: "The aud the job asks for (default this service's public URL)." },
    scope: { type: 'string', value: 'read|deploy', description: 'What the access tokens may do (default deploy).' },
    ttl: { type: 'string', value: 'TTL', description: 'Lifetime of the access tokens: 60 s to 15m (default 15m).' },
  },
  examples: [
    'svc trust-rules create --team payments --name deploy-main --issuer https://token.actions.githubusercontent.com --conditions repository_owner_id=9100,repository=acme/shop,ref=refs/heads/main',
    'svc trust-rules create --team payments --name tags --issuer https://gitlab.com --conditions namespace_id=72,ref_protected=true,ref=v* --ttl 5m',
  ],
  async run(ctx) {
    const helpFor = 'svc trust-rules create';
    const team = ctx.opts.team ?? ctx.env.SVC_TEAM;
    if (!team) throw new CliError('usage', 'Name the team of the rule with --team (or set SVC_TEAM).', { helpFor });
    const { scope, audience, ttl } = ctx.opts;
    if (scope !== undefined && scope !== 'read' && scope !== 'deploy') throw new CliError('usage', `The scope of a trust rule is read or deploy (got "${scope}").`, { helpFor });
    const body: Record<string, unknown> = { name: ctx.opts.name, issuer: ctx.opts.issuer, conditions: parseConditions(ctx.opts.conditions as string, helpFor) };
    if (audience !== undefined) body.audience = audience;
    if (scope !== undefined) body.scope = scope;
    if (ttl !== undefined) body.ttl = ttl;
    const r = await ctx.api().post<TrustRule>('/api/v1/trust-rules', body, { 'x-svc-team': team });
    ctx.out.result(r, () => {
      ctx.out.fields(fields(r));
      ctx.out.note(`A job exchanges its token with resource=${team} at /oauth/token (docs/identity.md); see the exchanges with "svc trust-rules exchanges --rule ${r.id}".`);
    });
  },
});

const list = defineCommand({
  name: 'list',
  summary: 'List the trust rules of the teams you can read',
  options: { team: { type: 'string', value: 'TEAM', description: 'Only this team (name or id).' } },
  examples: ['svc trust-rules list', 'svc trust-rules list --team payments --json'],
  async run(ctx) {
    const api = ctx.api();
    const items = await api.listAll<TrustRule>('/api/v1/trust-rules', { team: ctx.opts.team });
    const teamName = ctx.json || items.length === 0 ? String : await teamNames(api);
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, columns(teamName), 'No trust rules. Create one with "svc trust-rules create --team TEAM --name NAME --issuer URL --conditions CLAIM=VALUE".'));
  },
});

const ID_ARG = [{ name: 'id', required: true, description: 'The rule id (from svc trust-rules list).' }];

const show = defineCommand({
  name: 'show',
  summary: 'Show a trust rule',
  args: ID_ARG,
  examples: ['svc trust-rules show tr_3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const r = await ctx.api().get<TrustRule>(`/api/v1/trust-rules/${seg(ctx.args.id as string)}`);
    ctx.out.result(r, () => ctx.out.fields(fields(r)));
  },
});

const remove = defineCommand({
  name: 'delete',
  summary: 'Delete a trust rule; the access tokens obtained through it stop working at once (team admins)',
  args: ID_ARG,
  examples: ['svc trust-rules delete tr_3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const r = await ctx.api().delete<TrustRule>(`/api/v1/trust-rules/${seg(ctx.args.id as string)}`);
    ctx.out.result(r, () => ctx.out.line(`Deleted trust rule ${r.id} (${r.name}); its access tokens no longer work.`));
  },
});

const EXCHANGE_COLUMNS: Column<Exchange>[] = [
  { title: 'id', value: (x) => x.id },
  { title: 'rule', value: (x) => x.rule },
  { title: 'subject', value: (x) => x.subject },
  { title: 'claims', value: (x) => describeConditions(x.claims) },
  { title: 'expires', value: (x) => x.expires_at },
  { title: 'created', value: (x) => x.created_at },
];

const exchanges = defineCommand({
  name: 'exchanges',
  summary: 'List the token exchanges made through trust rules, newest first',
  options: {
    team: { type: 'string', value: 'TEAM', description: 'Only this team (name or id).' },
    rule: { type: 'string', value: 'ID', description: 'Only the exchanges of this rule.' },
    limit: LIMIT_OPTION('exchanges'),
  },
  examples: ['svc trust-rules exchanges --team payments', 'svc trust-rules exchanges --rule tr_3f2a9c0d1e4b5a67 --limit 10 --json'],
  async run(ctx) {
    const max = maxItems(ctx.opts.limit, 'svc trust-rules exchanges');
    const items = await ctx.api().listAll<Exchange>('/api/v1/trust-exchanges', { team: ctx.opts.team, rule: ctx.opts.rule }, max);
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, EXCHANGE_COLUMNS, 'No exchanges yet.'));
  },
});

export const trustRulesGroup = defineGroup('trust-rules', 'CI jobs without stored secrets: trust rules and their token exchanges', [create, list, show, remove, exchanges]);
