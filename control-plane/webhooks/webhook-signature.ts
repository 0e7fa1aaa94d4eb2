/**
 * The webhook signature header: `X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed
 * with the webhook's secret (the whole `whsec_…` string as UTF-8). Receivers recompute it over the raw body, compare
 * in constant time and refuse old timestamps (docs/webhooks.md has a sample).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-svc-signature';

export function signatureOf(secret: string, unixSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
}

export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${signatureOf(secret, unixSeconds, body)}`;
}

/** Verifies a header against the raw body; `toleranceSeconds` bounds the age of the timestamp (replays). */
export function verifySignature(secret: string, header: string, body: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const i = item.indexOf('=');
    if (i <= 0) continue;
    const k = item.slice(0, i).trim();
    parts.set(k, [...(parts.get(k) ?? []), item.slice(i + 1).trim()]);
  }
  const t = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(secret, t, body), 'hex');
  return (parts.get('v1') ?? []).some((v) => {
    const got = Buffer.from(v, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
