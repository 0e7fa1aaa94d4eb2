/**
 * Trust rules: which CI jobs may exchange their OIDC token for an access token of a team (RFC 8693). Team admins
 * manage their team's rules. A rule's scope (read or deploy) is never more than its creator has: checked at
 * creation here and at every exchange (token-exchange-grant.ts). Deleting a rule ends the access tokens obtained
 * through it on every node (their `sid` is the rule's id, session-state.ts).
 */
import type { AppContext } from '../../../core/context.ts';
import { can, readableTeams, requireTeam, type Principal } from '../../../core/auth/principal.ts';
import { rfc3339 } from '../../../core/clock.ts';
import { svcError } from '../../../core/errors.ts';
import { listEnvelope, type ListParams } from '../../../core/http/list.ts';
import { newId } from '../../../core/ids.ts';
import { ACCESS_TOKEN_TTL_S } from '../access-tokens.ts';
import { ACCESS_SESSIONS_CACHE } from '../session-state.ts';
import type { OidcIssuers } from './oidc-issuers.ts';
import { checkConditions, type Conditions } from './trust-conditions.ts';

export type RuleScope = 'read' | 'deploy';

export interface TrustRuleRow {
  id: string;
  team_id: string;
  name: string;
  issuer: string;
  audience: string;
  conditions: Conditions;
  scope: RuleScope;
  ttl_seconds: number;
  created_by: string | null;
  created_at: Date;
  deleted_at: Date | null;
  /** Its creator no longer has a role in the team that allows its scope (RULES_SELECT computes it). */
  disabled: boolean;
}

/**
 * Rules with `disabled`: true unless the creator is a superuser or holds a role that allows the scope (read: any
 * role; deploy: member and above, core/auth/principal.ts). One expression for the API and for every exchange.
 */
export const RULES_SELECT = `SELECT r.*, NOT EXISTS (
    SELECT 1 FROM users u LEFT JOIN memberships m ON m.user_id = u.id AND m.team_id = r.team_id
     WHERE u.id = r.created_by AND (u.is_superuser OR (r.scope = 'read' AND m.role IS NOT NULL) OR m.role IN ('member', 'admin', 'owner'))
  ) AS disabled FROM trust_rules r`;

export function ruleView(r: TrustRuleRow): Record<string, unknown> {
  return {
    id: r.id, team: r.team_id, name: r.name, issuer: r.issuer, audience: r.audience, conditions: r.conditions,
    scope: r.scope, ttl: r.ttl_seconds, created_by: r.created_by, disabled: r.disabled, created_at: rfc3339(r.created_at),
  };
}

export interface NewRule {
  name: string;
  issuer: string;
  audience?: string;
  conditions: unknown;
  scope: RuleScope;
  ttl: number;
}

function checkIssuer(issuer: string): string {
  let u: URL;
  try {
    u = new URL(issuer);
  } catch {
    throw svcError('invalid_issuer', 'The issuer must be an absolute URL, e.g. https://token.actions.githubusercontent.com.', { field: 'issuer' });
  }
  if (u.search || u.hash || u.username || u.password) throw svcError('invalid_issuer', 'The issuer URL has no query, fragment or credentials.', { field: 'issuer' });
  return issuer;
}

export async function createRule(ctx: AppContext, issuers: OidcIssuers, p: Principal, teamId: string, b: NewRule): Promise<TrustRuleRow> {
  requireTeam(p, teamId, 'manage');
  // The rule acts with its creator's authority, checked again at every exchange: it needs a person behind it.
  if (!p.userId) throw svcError('forbidden', 'A trust rule is created by a user (its scope is checked against theirs at every exchange); the admin token belongs to no user.');
  if (!can(p, teamId, b.scope)) throw svcError('forbidden', `You cannot grant ${b.scope} scope in this team.`);
  if (b.ttl > ACCESS_TOKEN_TTL_S || b.ttl < 60) throw svcError('invalid_ttl', `A trust rule's ttl is 60 to ${ACCESS_TOKEN_TTL_S} seconds.`, { field: 'ttl' });
  const conditions = checkConditions(b.conditions);
  const issuer = checkIssuer(b.issuer);
  await issuers.check(issuer);
  const r = await ctx.db.query<TrustRuleRow>(
    `INSERT INTO trust_rules (id, team_id, name, issuer, audience, conditions, scope, ttl_seconds, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *, false AS disabled`,
    [newId('tr_'), teamId, b.name, issuer, b.audience ?? ctx.config.publicUrl, JSON.stringify(conditions), b.scope, b.ttl, p.userId, new Date(ctx.clock.now())],
  );
  return r.rows[0];
}

export async function loadRule(ctx: AppContext, p: Principal, id: string, need: 'read' | 'manage'): Promise<TrustRuleRow> {
  const r = await ctx.db.query<TrustRuleRow>(`${RULES_SELECT} WHERE r.id = $1 AND r.deleted_at IS NULL`, [id]);
  const rule = r.rows[0];
  if (!rule || (!p.isSuperuser && !p.teams.has(rule.team_id))) throw svcError('not_found', 'The trust rule was not found.');
  requireTeam(p, rule.team_id, need);
  return rule;
}

/** WHERE terms of a team list, newest first by (created_at, id): the teams the caller reads, the team asked for, the page. */
function teamListWhere(p: Principal, teamId: string | undefined, page: ListParams, params: unknown[], t = ''): string[] {
  if (teamId) requireTeam(p, teamId, 'read');
  const where: string[] = [];
  const visible = readableTeams(p);
  if (visible) where.push(`${t}team_id = ANY($${params.push(visible)})`);
  if (teamId) where.push(`${t}team_id = $${params.push(teamId)}`);
  if (page.after) where.push(`(${t}created_at, ${t}id) < ($${params.push(page.after[0])}::timestamptz, $${params.push(page.after[1])})`);
  return where;
}

export async function listRules(ctx: AppContext, p: Principal, teamId: string | undefined, page: ListParams) {
  const params: unknown[] = [page.limit + 1];
  const where = ['r.deleted_at IS NULL', ...teamListWhere(p, teamId, page, params, 'r.')];
  const r = await ctx.db.query<TrustRuleRow>(`${RULES_SELECT} WHERE ${where.join(' AND ')} ORDER BY r.created_at DESC, r.id DESC LIMIT $1`, params);
  return listEnvelope(r.rows, page.limit, (x) => [x.created_at.toISOString(), x.id], ruleView);
}

export async function deleteRule(ctx: AppContext, p: Principal, id: string): Promise<TrustRuleRow> {
  const rule = await loadRule(ctx, p, id, 'manage');
  await ctx.db.query('UPDATE trust_rules SET deleted_at = $2 WHERE id = $1', [id, new Date(ctx.clock.now())]);
  await ctx.caches.invalidate(ACCESS_SESSIONS_CACHE, id);
  return rule;
}

interface ExchangeRow {
  id: string;
  team_id: string;
  rule_id: string;
  issuer: string;
  subject: string;
  claims: Record<string, string>;
  expires_at: Date;
  created_at: Date;
}

export async function listExchanges(ctx: AppContext, p: Principal, filter: { teamId?: string; ruleId?: string }, page: ListParams) {
  const params: unknown[] = [page.limit + 1];
  const where = teamListWhere(p, filter.teamId, page, params);
  if (filter.ruleId) where.push(`rule_id = $${params.push(filter.ruleId)}`);
  const r = await ctx.db.query<ExchangeRow>(
    `SELECT id, team_id, rule_id, issuer, subject, claims, expires_at, created_at FROM trust_exchanges ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $1`,
    params,
  );
  return listEnvelope(r.rows, page.limit, (x) => [x.created_at.toISOString(), x.id], (x) => ({
    id: x.id, team: x.team_id, rule: x.rule_id, issuer: x.issuer, subject: x.subject, claims: x.claims, token_id: x.id, expires_at: rfc3339(x.expires_at), created_at: rfc3339(x.created_at),
  }));
}
