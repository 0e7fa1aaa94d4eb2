/**
 * OAuth's error answer (RFC 6749 §5.2): `{"error", "error_description"}` with 400 (401 for client authentication).
 * Only the OAuth endpoints (/oauth/…) answer this way; everything else answers the family's error object.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  | 'server_error'
  | 'temporarily_unavailable';

const MARK = Symbol.for('svc.oauth-error');

export class OAuthError extends Error {
  readonly [MARK] = true;
  readonly error: OAuthErrorCode;
  readonly status: number;
  constructor(error: OAuthErrorCode, description: string, status = 400) {
    super(description);
    this.error = error;
    this.status = status;
  }
}

export function isOAuthError(e: unknown): e is OAuthError {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[MARK] === true;
}

export function oauthError(error: OAuthErrorCode, description: string, status = 400): OAuthError {
  return new OAuthError(error, description, status);
}
