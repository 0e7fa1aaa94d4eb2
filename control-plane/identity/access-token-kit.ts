/**
 * The pieces of access tokens one node shares: the signing keys, the session states, the verifier of this service's
 * tokens, and `verify`, which also accepts a separate identity issuer's tokens when one is configured (the token's
 * `iss` chooses the verifier; it is checked again by the verifier chosen).
 */
import { decodeJwt } from 'jose';
import type { AccessTokenVerifier as VerifyFn } from '../../core/auth/authenticate.ts';
import type { AppContext } from '../../core/context.ts';
import { AccessTokenVerifier } from './access-tokens.ts';
import { ExternalAccessTokens } from './external-access-tokens.ts';
import { SessionState } from './session-state.ts';
import { SigningKeyRing } from './signing-key-ring.ts';
import { UserRoles } from './user-roles.ts';

export interface AccessTokenKit {
  ring: SigningKeyRing;
  sessions: SessionState;
  verifier: AccessTokenVerifier;
  verify: VerifyFn;
}

function issuerOf(token: string): unknown {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}

export function createAccessTokenKit(ctx: AppContext): AccessTokenKit {
  const ring = new SigningKeyRing(ctx);
  const sessions = new SessionState(ctx);
  const roles = new UserRoles(ctx);
  const verifier = new AccessTokenVerifier(ctx, ring, sessions, roles);
  const external = ctx.config.externalIssuer ? new ExternalAccessTokens(ctx, roles, ctx.config.externalIssuer) : undefined;
  const verify: VerifyFn = (token) => (external && issuerOf(token) === external.issuer ? external.verify(token) : verifier.verify(token));
  return { ring, sessions, verifier, verify };
}
