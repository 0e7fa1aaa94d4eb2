/** Ids: short random lowercase hex, or a prefix plus hex (tk_…, sk-svc-…). Secrets use 32 random bytes. */
import { createHash, randomBytes } from 'node:crypto';

export function randomHex(bytes = 8): string {
  return randomBytes(bytes).toString('hex');
}

export function newId(prefix = ''): string {
  return prefix + randomHex(8);
}

export function newSecret(prefix: string): string {
  return prefix + randomBytes(24).toString('base64url');
}

/** Secrets (tokens, keys) are stored as their SHA-256; lookups hash the presented value. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Names that end up in host names must be DNS labels (RFC 1123). */
export function isDnsLabel(name: string): boolean {
  return DNS_LABEL.test(name);
}
