/**
 * Playground credentials: short-lived stand-ins for a gateway key that the control plane mints for the web panel's
 * playground (the panel never holds a key's secret, which is stored hashed). The gateway accepts one as its key until
 * it expires. Ordinary keys are `sk-svc-` plus base64url, which has no `.`, so the prefix tells the two apart
 * without a lookup and ordinary keys never pay for this.
 */
export const PLAYGROUND_SECRET_PREFIX = 'sk-svc-pg.';

/** How long a minted credential works: one playground session of a few calls. */
export const PLAYGROUND_CREDENTIAL_TTL_S = 300;

export function isPlaygroundSecret(secret: string): boolean {
  return secret.startsWith(PLAYGROUND_SECRET_PREFIX);
}
