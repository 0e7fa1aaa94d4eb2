/** The pieces of access tokens one node shares: the signing keys, the session states and the verifier. */
import type { AppContext } from '../../core/context.ts';
import { AccessTokenVerifier } from './access-tokens.ts';
import { SessionState } from './session-state.ts';
import { SigningKeyRing } from './signing-key-ring.ts';
import { UserRoles } from './user-roles.ts';

export interface AccessTokenKit {
  ring: SigningKeyRing;
  sessions: SessionState;
  verifier: AccessTokenVerifier;
}

export function createAccessTokenKit(ctx: AppContext): AccessTokenKit {
  const ring = new SigningKeyRing(ctx);
  const sessions = new SessionState(ctx);
  return { ring, sessions, verifier: new AccessTokenVerifier(ctx, ring, sessions, new UserRoles(ctx)) };
}
