import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from './webhook-signature.ts';

describe('webhook signature', () => {
  const secret = 'whsec_test';
  const body = '{"id":"dlv_1","kind":"webhook.test"}';

  it('is t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(secret, 1700000000, body)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('verifies the right secret and body within the tolerance, and nothing else', () => {
    const h = signatureHeader(secret, 1700000000, body);
    expect(verifySignature(secret, h, body, 1700000100)).toBe(true);
    expect(verifySignature(secret, h, body, 1700000301)).toBe(false);
    expect(verifySignature('whsec_other', h, body, 1700000000)).toBe(false);
    expect(verifySignature(secret, h, `${body} `, 1700000000)).toBe(false);
    expect(verifySignature(secret, 'garbage', body, 1700000000)).toBe(false);
    expect(verifySignature(secret, 't=1700000000,v1=abc', body, 1700000000)).toBe(false);
  });
});
