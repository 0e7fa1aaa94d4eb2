/**
 * Sign-in sessions of the command-line client: a session (`sid`) holds one live refresh token at a time. A refresh
 * token is single-use: using it returns a new one; presenting a used one again means it was copied, so the whole
 * session is revoked (OAuth 2.1 §4.3.1, refresh token rotation).
 */
import type { AppContext } from '../../core/context.ts';
import type { Scope, TeamRole } from '../../core/auth/principal.ts';
import type { Queryable } from '../../core/db/db.ts';
import { hashSecret, newId, newSecret } from '../../core/ids.ts';
import type { AccessGrant } from './access-tokens.ts';
import { oauthError } from './oauth-error.ts';
import { revokeSession } from './session-state.ts';

export const SESSION_TTL_MS = 90 * 86_400_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;
const USED_KEPT_MS = 86_400_000;

export async function createSession(ctx: AppContext, q: Queryable, userId: string, scope: Scope, clientName: string): Promise<string> {
  const sid = newId('as_');
  const now = ctx.clock.now();
  // Sessions ended more than a month ago are of no use (their tokens go with them): cleared on the way.
  await q.query('DELETE FROM auth_sessions WHERE user_id = $1 AND (expires_at < $2 OR revoked_at < $2)', [userId, new Date(now - REFRESH_TOKEN_TTL_MS)]);
  await q.query('INSERT INTO auth_sessions (id, user_id, scope, client_name, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    sid, userId, scope, clientName.slice(0, 200), new Date(now + SESSION_TTL_MS), new Date(now),
  ]);
  return sid;
}

export async function newRefreshToken(ctx: AppContext, q: Queryable, sid: string): Promise<string> {
  const secret = newSecret('rt_');
  const now = ctx.clock.now();
  await q.query('INSERT INTO refresh_tokens (token_hash, session_id, expires_at, created_at) VALUES ($1, $2, $3, $4)', [hashSecret(secret), sid, new Date(now + REFRESH_TOKEN_TTL_MS), new Date(now)]);
  return secret;
}

/** What an access token of this user carries: roles and superuser flag as of now. */
export async function userGrant(ctx: AppContext, userId: string, sid: string, scope: Scope): Promise<AccessGrant> {
  const u = await ctx.db.query<{ is_superuser: boolean }>('SELECT is_superuser FROM users WHERE id = $1', [userId]);
  if (!u.rows[0]) throw oauthError('invalid_grant', 'The user of this session no longer exists.');
  const m = await ctx.db.query<{ team_id: string; role: TeamRole }>('SELECT team_id, role FROM memberships WHERE user_id = $1', [userId]);
  return { subject: userId, userId, sid, scope, superuser: u.rows[0].is_superuser, teams: Object.fromEntries(m.rows.map((r) => [r.team_id, r.role])) };
}

/** Consumes a refresh token: the session it belongs to and a new refresh token; reuse revokes the session. */
export async function rotateRefreshToken(ctx: AppContext, secret: string): Promise<{ sid: string; userId: string; scope: Scope; refreshToken: string }> {
  const now = new Date(ctx.clock.now());
  const hash = hashSecret(secret);
  const outcome = await ctx.db.tx(async (q) => {
    const r = await q.query<{ session_id: string; expires_at: Date; used_at: Date | null; user_id: string; scope: Scope; revoked_at: Date | null; session_expires: Date }>(
      `SELECT t.session_id, t.expires_at, t.used_at, s.user_id, s.scope, s.revoked_at, s.expires_at AS session_expires
         FROM refresh_tokens t JOIN auth_sessions s ON s.id = t.session_id WHERE t.token_hash = $1 FOR UPDATE OF t`,
      [hash],
    );
    const t = r.rows[0];
    if (!t) throw oauthError('invalid_grant', 'The refresh token is not known.');
    if (t.revoked_at) throw oauthError('invalid_grant', 'The session of this refresh token has ended; sign in again.');
    if (t.used_at) return { reused: true as const, sid: t.session_id };
    if (new Date(t.expires_at) <= now || new Date(t.session_expires) <= now) throw oauthError('invalid_grant', 'The refresh token has expired; sign in again.');
    await q.query('UPDATE refresh_tokens SET used_at = $2 WHERE token_hash = $1', [hash, now]);
    // A used token is kept a day to catch its reuse; older ones are only refused as unknown (which is as safe).
    await q.query('DELETE FROM refresh_tokens WHERE session_id = $1 AND used_at < $2', [t.session_id, new Date(now.getTime() - USED_KEPT_MS)]);
    return { reused: false as const, sid: t.session_id, userId: t.user_id, scope: t.scope, refreshToken: await newRefreshToken(ctx, q, t.session_id) };
  });
  if (outcome.reused) {
    await revokeSession(ctx, outcome.sid, 'refresh_token_reused');
    ctx.log.warn({ sid: outcome.sid }, 'a used refresh token was presented again; its session is revoked');
    throw oauthError('invalid_grant', 'This refresh token was already used; the session is revoked as a precaution. Sign in again.');
  }
  return outcome;
}

/** The session a refresh token belongs to (for revocation), or undefined. */
export async function sessionOfRefreshToken(ctx: AppContext, secret: string): Promise<string | undefined> {
  const r = await ctx.db.query<{ session_id: string }>('SELECT session_id FROM refresh_tokens WHERE token_hash = $1', [hashSecret(secret)]);
  return r.rows[0]?.session_id;
}
