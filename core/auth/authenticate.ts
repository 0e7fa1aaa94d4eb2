/**
 * Resolves a REST caller into a Principal: the instance admin token (SVC_ADMIN_TOKEN), an API token `tk_…`, an
 * access token (a JWT, verified by the verifier the control plane passes in), or a panel session cookie. Token records are cached per hash and dropped on every node when a token is revoked or a
 * membership changes (cache name `principals`). last_used_at is written at most once a minute per token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { LookupCache } from '../cache.ts';
import { svcError } from '../errors.ts';
import { hashSecret } from '../ids.ts';
import type { Principal, Scope, TeamRole } from './principal.ts';

export const PRINCIPALS_CACHE = 'principals';
export const SESSION_COOKIE = 'svc_session';

interface Record_ {
  tokenId: string | null;
  userId: string;
  isSuperuser: boolean;
  scope: Scope;
  expiresAt: number | null;
  revoked: boolean;
  teams: [string, TeamRole][];
}

type Lookup = Record_ | null;

/** Verifies an access token (a JWT) into a Principal, or throws the refusal. */
export type AccessTokenVerifier = (token: string) => Promise<Principal>;

/** A compact JWS: three base64url parts, the header a JSON object (`eyJ` is `{"`). */
export function isJwtShaped(token: string): boolean {
  return token.startsWith('eyJ') && token.split('.').length === 3;
}

export class Authenticator {
  #ctx: AppContext;
  #cache: LookupCache<Lookup>;
  #touched = new Map<string, number>();
  #admin: Buffer | null;
  #accessTokens: AccessTokenVerifier | undefined;

  constructor(ctx: AppContext, accessTokens?: AccessTokenVerifier) {
    this.#ctx = ctx;
    this.#accessTokens = accessTokens;
    this.#cache = ctx.caches.register(new LookupCache<Lookup>(PRINCIPALS_CACHE, 30_000));
    this.#admin = ctx.config.adminToken ? Buffer.from(hashSecret(ctx.config.adminToken)) : null;
  }

  /** From `Authorization: Bearer …`; returns null when no credentials were sent. */
  async fromBearer(token: string): Promise<Principal> {
    if (this.#admin && timingSafeEqual(Buffer.from(hashSecret(token)), this.#admin)) {
      return { userId: null, isSuperuser: true, scope: 'write', via: 'admin_token', tokenId: null, teams: new Map() };
    }
    if (this.#accessTokens && isJwtShaped(token)) return this.#accessTokens(token);
    if (!token.startsWith('tk_')) throw svcError('invalid_token');
    const rec = await this.#cache.get(`t:${hashSecret(token)}`, (k) => this.#loadToken(k.slice(2)));
    if (!rec) throw svcError('invalid_token');
    if (rec.revoked) throw svcError('token_revoked');
    if (rec.expiresAt !== null && rec.expiresAt <= this.#ctx.clock.now()) throw svcError('token_expired');
    this.#touch(rec.tokenId as string);
    return { userId: rec.userId, isSuperuser: rec.isSuperuser, scope: rec.scope, via: 'token', tokenId: rec.tokenId, teams: new Map(rec.teams) };
  }

  async fromSession(sessionSecret: string): Promise<Principal> {
    const rec = await this.#cache.get(`s:${hashSecret(sessionSecret)}`, (k) => this.#loadSession(k.slice(2)));
    if (!rec || (rec.expiresAt !== null && rec.expiresAt <= this.#ctx.clock.now())) throw svcError('unauthenticated', 'The session has expired; sign in again.');
    return { userId: rec.userId, isSuperuser: rec.isSuperuser, scope: 'write', via: 'session', tokenId: null, teams: new Map(rec.teams) };
  }

  async #teamsOf(userId: string): Promise<[string, TeamRole][]> {
    const r = await this.#ctx.db.query<{ team_id: string; role: TeamRole }>('SELECT team_id, role FROM memberships WHERE user_id = $1', [userId]);
    return r.rows.map((m) => [m.team_id, m.role]);
  }

  async #loadToken(hash: string): Promise<Lookup> {
    const r = await this.#ctx.db.query<{ id: string; user_id: string; scope: Scope; expires_at: Date | null; revoked_at: Date | null; is_superuser: boolean }>(
      `SELECT t.id, t.user_id, t.scope, t.expires_at, t.revoked_at, u.is_superuser
         FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`,
      [hash],
    );
    const t = r.rows[0];
    if (!t) return null;
    return {
      tokenId: t.id,
      userId: t.user_id,
      isSuperuser: t.is_superuser,
      scope: t.scope,
      expiresAt: t.expires_at ? new Date(t.expires_at).getTime() : null,
      revoked: t.revoked_at !== null,
      teams: await this.#teamsOf(t.user_id),
    };
  }

  async #loadSession(hash: string): Promise<Lookup> {
    const r = await this.#ctx.db.query<{ user_id: string; expires_at: Date; is_superuser: boolean }>(
      'SELECT s.user_id, s.expires_at, u.is_superuser FROM panel_sessions s JOIN users u ON u.id = s.user_id WHERE s.session_hash = $1',
      [hash],
    );
    const s = r.rows[0];
    if (!s) return null;
    return { tokenId: null, userId: s.user_id, isSuperuser: s.is_superuser, scope: 'write', expiresAt: new Date(s.expires_at).getTime(), revoked: false, teams: await this.#teamsOf(s.user_id) };
  }

  #touch(tokenId: string): void {
    const now = this.#ctx.clock.now();
    if ((this.#touched.get(tokenId) ?? 0) > now - 60_000) return;
    // Bounded: entries older than the minute carry no information any more.
    if (this.#touched.size >= 10_000) for (const [id, t] of this.#touched) if (t <= now - 60_000) this.#touched.delete(id);
    this.#touched.set(tokenId, now);
    this.#ctx.db.query('UPDATE api_tokens SET last_used_at = $2 WHERE id = $1', [tokenId, new Date(now)]).catch((err) => this.#ctx.log.warn({ err }, 'could not record token use'));
  }
}
