/**
 * Fuzz-style test of the writer's pure pipeline: random JSON documents (shaped like events, with random types
 * in every field and random nesting) through scrubEvent → normalizeEvent → fingerprintEvent. Each must give a
 * normalised event and a 32-hex group, or a 400 SvcError; never another exception. Seeded and reproducible.
 */
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../core/errors.ts';
import { fingerprintEvent } from './fingerprint-event.ts';
import { normalizeEvent } from './normalize-event.ts';
import { peopleHash } from './people-hash.ts';
import { scrubEvent } from './scrub-event.ts';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['event_id', 'timestamp', 'level', 'platform', 'release', 'environment', 'message', 'logentry', 'exception', 'values',
  'type', 'value', 'stacktrace', 'frames', 'filename', 'function', 'module', 'in_app', 'lineno', 'mechanism', 'synthetic', 'tags',
  'breadcrumbs', 'user', 'id', 'email', 'ip_address', 'request', 'headers', 'url', 'query_string', 'cookies', 'contexts',
  'fingerprint', 'params', 'formatted', 'password', 'data', '__proto__', 'transaction'];
const STRINGS = ['', 'x', '{{auto}}', '{{ default }}', '9ec79c33ec9942ab8353589fcb2e04dc', '2024-05-06T07:08:09Z', 'error', 'warn',
  'https://u:p@h/x?token=1', 'Bearer abc.def.123456', '4111 1111 1111 1111', '%s %d', '<anonymous>', 'a=b; session=c', '\u0000\n\r'];

function value(r: () => number, depth: number): unknown {
  const pick = Math.floor(r() * (depth > 4 ? 5 : 8));
  switch (pick) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return [0, -1, 1.5, 1e21, 1714979289, Number.MAX_SAFE_INTEGER][Math.floor(r() * 6)];
    case 3: case 4: return STRINGS[Math.floor(r() * STRINGS.length)];
    case 5: return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
    case 6: return [[STRINGS[Math.floor(r() * STRINGS.length)], value(r, depth + 1)]];
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 5); i > 0; i--) Object.defineProperty(o, KEYS[Math.floor(r() * KEYS.length)], { value: value(r, depth + 1), enumerable: true, writable: true, configurable: true });
      return o;
    }
  }
}

describe('scrub → normalise → fingerprint under random input', () => {
  it('never throws anything but a 400 SvcError', () => {
    const seed = 4242;
    const r = rng(seed);
    let ok = 0;
    for (let i = 0; i < 3000; i++) {
      const raw: Record<string, unknown> = {};
      for (let k = 0; k < 8; k++) raw[KEYS[Math.floor(r() * KEYS.length)]] = value(r, 0);
      if (r() < 0.7) delete raw.event_id;
      try {
        const event = normalizeEvent(scrubEvent(raw, ['custom']), { receivedAt: new Date('2024-05-06T12:00:00Z'), retentionDays: 30, clientIp: '10.0.0.1' });
        const group = fingerprintEvent(event);
        expect(group.hash).toMatch(/^[0-9a-f]{32}$/);
        expect(typeof event.title).toBe('string');
        expect(() => JSON.stringify(event.data)).not.toThrow();
        peopleHash(event.user, { ip: event.autoIp });
        ok++;
      } catch (e) {
        if (!isSvcError(e) || e.status !== 400) throw new Error(`seed ${seed} input ${i}: ${String(e)} for ${JSON.stringify(raw).slice(0, 300)}`);
      }
    }
    expect(ok).toBeGreaterThan(2000);
  });
});
