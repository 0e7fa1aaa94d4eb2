/**
 * A short-lived access token of the caller, minted by our identity role, so that a peer can decide with its own
 * rules whether this person may change an app or alias (the `dry_run` before every link). Peers verify it against
 * our JWKS (/.well-known/jwks.json). It carries the caller's scope and team roles; a caller without a sign-in
 * session (an API token, the admin token) gets a pseudo-session named after the token, which only peers read.
 */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { issueAccessToken } from '../identity/access-tokens.ts';
import type { SigningKeyRing } from '../identity/signing-key-ring.ts';

/** Long enough for a dry run and a retry, short enough that a leaked token is worth little. */
export const CALLER_TOKEN_TTL_S = 180;

export async function callerToken(ctx: AppContext, ring: SigningKeyRing, p: Principal): Promise<string> {
  const subject = p.userId ?? (p.via === 'admin_token' ? 'admin' : `token:${p.tokenId ?? 'unknown'}`);
  const { token } = await issueAccessToken(ctx, ring, {
    subject,
    userId: p.userId,
    sid: p.sessionId ?? `token:${p.tokenId ?? p.via}`,
    scope: p.scope,
    teams: Object.fromEntries(p.teams),
    superuser: p.isSuperuser,
    ttlSeconds: CALLER_TOKEN_TTL_S,
  });
  return token;
}
