/**
 * PKCE (RFC 7636, S256) and the OAuth state parameter: a verifier of 32 random bytes as base64url, its SHA-256
 * challenge, and a state of 32 random bytes. The state is the key of the sign-in row, so it must be unguessable.
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.1
 */
import { createHash, randomBytes } from 'node:crypto';

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier) };
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function newOAuthState(): string {
  return randomBytes(32).toString('base64url');
}
