/**
 * Access tokens: JWTs (RFC 9068 profile, `typ: at+jwt`) signed by this service, valid 15 minutes at most.
 *
 *   header  {"alg":"EdDSA","typ":"at+jwt","kid":"…"}
 *   claims  {"iss": public URL, "aud": public URL, "sub": user id (or "rule:<id>" for a CI job), "sid": session,
 *            "scope": "read|deploy|write", "teams": {"<team id>": "<role>"}, "su": true (superusers only),
 *            "jti", "iat", "exp", and "act" {"iss","sub"} for a token exchanged by a CI job (RFC 8693 §4.1)}
 *
 * The roles inside are those at issue time (other services may act on them for the token's 15 minutes); this service
 * applies the user's current roles (user-roles.ts). A CI job's token carries its one team role, fixed by the rule.
 * A token is accepted while its signature, issuer, audience, type and expiry hold and its session stands.
 */
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { AppContext } from '../../core/context.ts';
import type { Principal, Scope, TeamRole } from '../../core/auth/principal.ts';
import { SCOPES, TEAM_ROLES } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { randomHex } from '../../core/ids.ts';
import type { SessionState } from './session-state.ts';
import type { UserRoles } from './user-roles.ts';
import { SIGNING_ALG, type SigningKeyRing } from './signing-key-ring.ts';

export const ACCESS_TOKEN_TTL_S = 15 * 60;
export const ACCESS_TOKEN_TYP = 'at+jwt';
/** Longer than any token this service issues; a bigger Bearer value is refused before it is parsed. */
export const MAX_TOKEN_CHARS = 8192;

export interface AccessGrant {
  subject: string;
  userId: string | null;
  sid: string;
  scope: Scope;
  teams: Record<string, TeamRole>;
  superuser: boolean;
  ttlSeconds?: number;
  act?: { iss: string; sub: string };
  /** The token id, when the caller records it beforehand (an exchange). */
  jti?: string;
}

interface AccessClaims extends JWTPayload {
  sid?: unknown;
  scope?: unknown;
  teams?: unknown;
  su?: unknown;
}

export async function issueAccessToken(ctx: AppContext, ring: SigningKeyRing, g: AccessGrant): Promise<{ token: string; jti: string; expiresIn: number }> {
  const { kid, key } = await ring.signingKey();
  const now = Math.floor(ctx.clock.now() / 1000);
  const expiresIn = Math.min(g.ttlSeconds ?? ACCESS_TOKEN_TTL_S, ACCESS_TOKEN_TTL_S);
  const jti = g.jti ?? randomHex(12);
  const token = await new SignJWT({ sid: g.sid, scope: g.scope, teams: g.teams, ...(g.superuser ? { su: true } : {}), ...(g.act ? { act: g.act } : {}) })
    .setProtectedHeader({ alg: SIGNING_ALG, typ: ACCESS_TOKEN_TYP, kid })
    .setIssuer(ctx.config.publicUrl)
    .setAudience(ctx.config.publicUrl)
    .setSubject(g.subject)
    .setJti(jti)
    .setIssuedAt(now)
    .setExpirationTime(now + expiresIn)
    .sign(key);
  return { token, jti, expiresIn };
}

/** Verifies this service's access tokens into Principals (or throws token_expired, token_revoked, invalid_token). */
export class AccessTokenVerifier {
  #ctx: AppContext;
  #ring: SigningKeyRing;
  #sessions: SessionState;
  #roles: UserRoles;

  constructor(ctx: AppContext, ring: SigningKeyRing, sessions: SessionState, roles: UserRoles) {
    this.#ctx = ctx;
    this.#ring = ring;
    this.#sessions = sessions;
    this.#roles = roles;
  }

  /** The verified claims (signature, type, issuer, audience, expiry); the session is not checked. */
  async claims(token: string): Promise<AccessClaims> {
    if (token.length > MAX_TOKEN_CHARS) throw svcError('invalid_token', 'The access token is longer than any token this service issues.');
    try {
      const { payload } = await jwtVerify<AccessClaims>(token, async (header) => {
        const key = header.kid === undefined ? undefined : await this.#ring.verificationKey(header.kid);
        if (!key) throw svcError('invalid_token', 'The access token was not signed by a key of this service.');
        return key;
      }, {
        algorithms: [SIGNING_ALG],
        typ: ACCESS_TOKEN_TYP,
        issuer: this.#ctx.config.publicUrl,
        audience: this.#ctx.config.publicUrl,
        requiredClaims: ['sub', 'exp', 'iat', 'jti', 'sid', 'scope'],
        currentDate: new Date(this.#ctx.clock.now()),
      });
      return payload;
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw svcError('token_expired', 'The access token has expired; get a new one (svc login refreshes it by itself).');
      if ((e as { code?: unknown }).code === 'invalid_token') throw e;
      throw svcError('invalid_token', 'The access token is not valid.');
    }
  }

  readonly verify = async (token: string): Promise<Principal> => {
    const c = await this.claims(token);
    const scope = c.scope as Scope;
    if (!SCOPES.includes(scope) || typeof c.sid !== 'string') throw svcError('invalid_token', 'The access token is not valid.');
    if (!(await this.#sessions.stands(c.sid))) throw svcError('token_revoked', 'The session of this access token has ended (signed out or revoked).');
    const sub = c.sub as string;
    const base = { scope, via: 'access_token' as const, tokenId: c.jti as string, sessionId: c.sid };
    if (!sub.startsWith('rule:')) {
      const now = await this.#roles.of(sub);
      if (!now) throw svcError('token_revoked', 'The user of this access token no longer exists.');
      return { ...base, userId: sub, isSuperuser: now.isSuperuser, teams: now.teams };
    }
    const teams = new Map<string, TeamRole>();
    if (c.teams && typeof c.teams === 'object') {
      for (const [team, role] of Object.entries(c.teams as Record<string, unknown>)) if (TEAM_ROLES.includes(role as TeamRole)) teams.set(team, role as TeamRole);
    }
    return { ...base, userId: null, isSuperuser: false, teams };
  };
}
