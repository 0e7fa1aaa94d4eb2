/** Encryption of secrets at rest (provider keys, OAuth tokens, webhook secrets): AES-256-GCM with a random nonce. */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Derives the 32-byte key from SVC_SECRET_KEY (any length ≥ 32 characters). */
export function deriveKey(secret: string): Buffer {
  return createHash('sha256').update(`svc-secret-box:${secret}`).digest();
}

export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}.${c.getAuthTag().toString('base64url')}`;
}

export function open(key: Buffer, sealed: string): string {
  const [v, iv, body, tag] = sealed.split('.');
  if (v !== 'v1' || !iv || !body || !tag) throw new Error('Sealed value has an unknown format');
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString('utf8');
}
