/**
 * OAuth token exchange (RFC 8693) for CI jobs: `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` with the
 * job's OIDC token as `subject_token` (`subject_token_type` …:jwt or …:id_token) and the team in `X-Svc-Team` or
 * `resource`. Steps, each refusal an `invalid_grant` that says precisely why:
 *   1. the team's live rules for the token's issuer (read unverified, only to choose the keys);
 *   2. the signature against that issuer's keys, the audience of one of those rules, the times, and sub/jti/exp;
 *   3. exactly one rule whose audience and conditions all hold;
 *   4. the rule's creator still has the role the rule's scope needs (a creator who left disables the rule);
 *   5. the job token's jti not exchanged before (recorded with the exchange, unique per issuer).
 * The answer is an access token of the rule's scope and lifetime for the team, `sid` = the rule.
 */
import type { FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import type { AppContext } from '../../../core/context.ts';
import type { TeamRole } from '../../../core/auth/principal.ts';
import { newId } from '../../../core/ids.ts';
import { ACCESS_TOKEN_TTL_S, issueAccessToken, MAX_TOKEN_CHARS } from '../access-tokens.ts';
import type { SigningKeyRing } from '../signing-key-ring.ts';
import { oauthError } from '../oauth-error.ts';
import type { GrantHandler, OAuthBody } from '../oauth-routes.ts';
import { JobTokenRefusal, type OidcIssuers } from './oidc-issuers.ts';
import { matchedClaims, mismatch } from './trust-conditions.ts';
import { RULES_SELECT, type TrustRuleRow } from './trust-rules.ts';

const SUBJECT_TOKEN_TYPES = ['urn:ietf:params:oauth:token-type:jwt', 'urn:ietf:params:oauth:token-type:id_token'];
/** The smallest team role that allows each rule scope (core/auth/principal.ts). */
const ROLE_FOR_SCOPE: Record<TrustRuleRow['scope'], TeamRole> = { read: 'viewer', deploy: 'member' };

function teamParam(body: OAuthBody, req: FastifyRequest): string {
  const h = req.headers['x-svc-team'];
  const ref = typeof h === 'string' && h !== '' ? h : body.resource;
  if (!ref) throw oauthError('invalid_request', 'Name the team with the X-Svc-Team header or the resource parameter.');
  return ref;
}

export function tokenExchangeGrant(ctx: AppContext, ring: SigningKeyRing, issuers: OidcIssuers): GrantHandler {
  return async (body, req) => {
    const token = body.subject_token;
    if (!token) throw oauthError('invalid_request', 'The parameter subject_token is missing.');
    if (!SUBJECT_TOKEN_TYPES.includes(body.subject_token_type ?? '')) throw oauthError('invalid_request', `subject_token_type must be ${SUBJECT_TOKEN_TYPES.join(' or ')}.`);
    if (body.requested_token_type && body.requested_token_type !== 'urn:ietf:params:oauth:token-type:access_token') throw oauthError('invalid_request', 'Only access tokens can be requested.');
    if (token.length > MAX_TOKEN_CHARS) throw oauthError('invalid_grant', 'The job token is longer than any OIDC token.');
    const teamRef = teamParam(body, req);
    const team = (await ctx.db.query<{ id: string; name: string }>('SELECT id, name FROM teams WHERE id = $1 OR name = $1', [teamRef])).rows[0];
    if (!team) throw oauthError('invalid_target', `The team "${teamRef.slice(0, 100)}" does not exist.`);

    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      throw oauthError('invalid_grant', 'The job token is not a JWT.');
    }
    if (typeof iss !== 'string') throw oauthError('invalid_grant', 'The job token has no issuer (iss).');
    const rules = (await ctx.db.query<TrustRuleRow>(`${RULES_SELECT} WHERE r.team_id = $1 AND r.issuer = $2 AND r.deleted_at IS NULL ORDER BY r.created_at, r.id`, [team.id, iss])).rows;
    if (rules.length === 0) throw oauthError('invalid_grant', `No trust rule of the team ${team.name} accepts tokens from the issuer ${iss.slice(0, 200)}.`);

    let claims: Record<string, unknown>;
    try {
      claims = await issuers.verify(token, iss, [...new Set(rules.map((r) => r.audience))]);
    } catch (err) {
      if (err instanceof JobTokenRefusal) throw oauthError('invalid_grant', err.message);
      throw err;
    }
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    const outcomes = rules.map((r) => ({ rule: r, why: aud.includes(r.audience) ? mismatch(r.conditions, claims) : `the audience is not ${r.audience}` }));
    const matching = outcomes.filter((o) => o.why === null).map((o) => o.rule);
    if (matching.length === 0) throw oauthError('invalid_grant', `No trust rule matches the job token: ${outcomes.map((o) => `rule ${o.rule.name}: ${o.why}`).join('; ')}.`);
    if (matching.length > 1) throw oauthError('invalid_grant', `${matching.length} trust rules match the job token (${matching.map((r) => r.name).join(', ')}); make the rules exclusive so that exactly one matches.`);
    const rule = matching[0];

    if (rule.disabled) throw oauthError('invalid_grant', `The trust rule ${rule.name} is disabled: its creator no longer has a role in the team that allows ${rule.scope} scope.`);

    const exchangeId = newId('tx_');
    const now = ctx.clock.now();
    const ttl = Math.min(rule.ttl_seconds, ACCESS_TOKEN_TTL_S);
    const recorded = await ctx.db.query(
      `INSERT INTO trust_exchanges (id, team_id, rule_id, issuer, subject, job_jti, claims, expires_at, job_expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (issuer, job_jti) DO NOTHING`,
      [exchangeId, team.id, rule.id, iss, String(claims.sub), String(claims.jti), JSON.stringify(matchedClaims(rule.conditions, claims)), new Date(now + ttl * 1000), new Date(Number(claims.exp) * 1000), new Date(now)],
    );
    if (recorded.rowCount === 0) throw oauthError('invalid_grant', 'This job token was already exchanged; a job token is accepted once (its jti).');

    const { token: access, expiresIn } = await issueAccessToken(ctx, ring, {
      subject: `rule:${rule.id}`, userId: null, sid: rule.id, scope: rule.scope, superuser: false,
      teams: { [team.id]: ROLE_FOR_SCOPE[rule.scope] }, ttlSeconds: ttl, act: { iss, sub: String(claims.sub) }, jti: exchangeId,
    });
    ctx.log.info({ team: team.id, rule: rule.id, exchange: exchangeId, subject: claims.sub }, 'job token exchanged');
    return { access_token: access, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: expiresIn, scope: rule.scope };
  };
}
