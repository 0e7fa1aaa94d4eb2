import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../core/errors.ts';
import { normalizeEvent, type NormalizeOptions } from './normalize-event.ts';

const RECEIVED = new Date('2024-05-06T12:00:00.000Z');
const opts = (extra: Partial<NormalizeOptions> = {}): NormalizeOptions => ({ receivedAt: RECEIVED, retentionDays: 90, ...extra });
const norm = (raw: unknown, extra: Partial<NormalizeOptions> = {}) => normalizeEvent(raw, opts(extra));
const ID = '9ec79c33ec9942ab8353589fcb2e04dc';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isSvcError(e)) return `${e.status} ${e.code}`;
    throw e;
  }
  return 'ok';
}

describe('normalizeEvent: the payload', () => {
  it.each([[null], [[]], ['event'], [42], [true]])('refuses %j with 400 invalid_event', (raw) => {
    expect(code(() => norm(raw))).toBe('400 invalid_event');
  });

  it('keeps unknown fields as sent', () => {
    const e = norm({ extra: { a: [1, { b: 2 }] }, sdk: { name: 'x', version: '1' }, modules: { react: '18' }, custom_thing: 3 });
    expect(e.data).toMatchObject({ extra: { a: [1, { b: 2 }] }, sdk: { name: 'x', version: '1' }, modules: { react: '18' }, custom_thing: 3 });
  });
});

describe('normalizeEvent: event_id', () => {
  it('normalises the dashed form and upper case', () => {
    expect(norm({ event_id: '9EC79C33-EC99-42AB-8353-589FCB2E04DC' }).eventId).toBe(ID);
  });

  it('prefers the envelope header id', () => {
    const e = norm({ event_id: 'a'.repeat(32) }, { envelopeEventId: ID });
    expect(e.eventId).toBe(ID);
    expect(e.data.event_id).toBe(ID);
  });

  it('generates one when missing', () => {
    expect(norm({}).eventId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses a malformed id with 400 invalid_event_id', () => {
    expect(code(() => norm({ event_id: 'abc' }))).toBe('400 invalid_event_id');
    expect(code(() => norm({ event_id: 12 }))).toBe('400 invalid_event_id');
  });
});

describe('normalizeEvent: timestamp', () => {
  it.each([
    ['2024-05-06T11:59:00Z', '2024-05-06T11:59:00.000Z'],
    ['2024-05-06T11:59:00', '2024-05-06T11:59:00.000Z'],
    ['2024-05-06T13:59:00+02:00', '2024-05-06T11:59:00.000Z'],
    [Date.parse('2024-05-06T11:59:00.5Z') / 1000, '2024-05-06T11:59:00.500Z'],
  ])('reads %j', (raw, iso) => {
    const e = norm({ timestamp: raw });
    expect(e.timestamp.toISOString()).toBe(iso);
    expect(e.data.timestamp).toBe(iso);
    expect(e.data.original_timestamp).toBeUndefined();
  });

  it('uses the receive time when missing', () => {
    expect(norm({}).timestamp).toEqual(RECEIVED);
  });

  it('accepts up to 60 s in the future', () => {
    expect(norm({ timestamp: '2024-05-06T12:00:59Z' }).timestamp.toISOString()).toBe('2024-05-06T12:00:59.000Z');
  });

  it('clamps more than 60 s in the future, keeping the original', () => {
    const e = norm({ timestamp: '2024-05-06T12:01:01Z' });
    expect(e.timestamp).toEqual(RECEIVED);
    expect(e.data.original_timestamp).toBe('2024-05-06T12:01:01Z');
    expect(e.data._meta).toMatchObject({ timestamp: 'clamped_future' });
  });

  it('clamps timestamps older than the retention, keeping the original', () => {
    const e = norm({ timestamp: 1577836800 }, { retentionDays: 30 });
    expect(e.timestamp).toEqual(RECEIVED);
    expect(e.data.original_timestamp).toBe(1577836800);
    expect(e.data._meta).toMatchObject({ timestamp: 'clamped_past' });
    expect(norm({ timestamp: '2024-04-10T00:00:00Z' }, { retentionDays: 30 }).timestamp.toISOString()).toBe('2024-04-10T00:00:00.000Z');
  });

  it('drops an unreadable timestamp, not the event', () => {
    const e = norm({ timestamp: 'yesterday-ish' });
    expect(e.timestamp).toEqual(RECEIVED);
    expect(e.dropped).toContain('timestamp');
    expect(e.data.original_timestamp).toBe('yesterday-ish');
  });

  it('corrects a client clock that is off by more than 55 minutes using sent_at', () => {
    // The client clock is 2 hours behind: it stamped 09:59:30 and sent at 10:00:00 (received 12:00:00).
    const e = norm({ timestamp: '2024-05-06T09:59:30Z' }, { sentAt: '2024-05-06T10:00:00Z' });
    expect(e.timestamp.toISOString()).toBe('2024-05-06T11:59:30.000Z');
    expect(e.data._meta).toMatchObject({ clock_drift_ms: 2 * 3600_000 });
    // A small drift is left alone.
    expect(norm({ timestamp: '2024-05-06T11:59:30Z' }, { sentAt: '2024-05-06T11:58:00Z' }).timestamp.toISOString()).toBe('2024-05-06T11:59:30.000Z');
  });
});

describe('normalizeEvent: level, strings', () => {
  it.each([
    [undefined, 'error'], ['warning', 'warning'], ['WARN', 'warning'], ['fatal', 'fatal'], ['critical', 'fatal'],
    ['info', 'info'], ['log', 'info'], ['debug', 'debug'],
  ])('level %j → %s', (raw, level) => {
    expect(norm({ level: raw }).level).toBe(level);
  });

  it('drops an unknown level to the default', () => {
    const e = norm({ level: 'catastrophic' });
    expect(e.level).toBe('error');
    expect(e.dropped).toContain('level');
  });

  it('keeps release, environment, platform, server_name, transaction, dist, logger', () => {
    const e = norm({ release: 'app@1.2.3', environment: 'staging', platform: 'Node', server_name: 'web-1', transaction: 'GET /users', dist: '7', logger: 'app' });
    expect(e).toMatchObject({ release: 'app@1.2.3', environment: 'staging', platform: 'node', serverName: 'web-1', transaction: 'GET /users', dist: '7', logger: 'app' });
    expect(e.data).toMatchObject({ release: 'app@1.2.3', server_name: 'web-1', platform: 'node' });
  });

  it('drops unreadable optional strings', () => {
    const e = norm({ release: { v: 1 }, environment: 'x'.repeat(100), platform: 'not a platform!', server_name: 'a\nb' });
    expect(e.release).toBeUndefined();
    expect(e.environment).toBeUndefined();
    expect(e.platform).toBe('other');
    expect(e.dropped).toEqual(expect.arrayContaining(['release', 'environment', 'platform', 'server_name']));
    expect(e.data.release).toBeUndefined();
    expect(e.data._meta).toMatchObject({ dropped: expect.arrayContaining(['release']) });
    expect(norm({ release: 123 }).release).toBe('123');
  });
});

describe('normalizeEvent: message', () => {
  it('reads a string message', () => {
    const e = norm({ message: 'Something broke' });
    expect(e).toMatchObject({ message: 'Something broke', type: 'default', title: 'Something broke' });
    expect(e.messageTemplate).toBeUndefined();
  });

  it('reads {message, params} and formats it', () => {
    const e = norm({ message: { message: 'User %s not found (%d)', params: ['bob', 404] } });
    expect(e).toMatchObject({ message: 'User bob not found (404)', messageTemplate: 'User %s not found (%d)' });
    expect(e.data.logentry).toEqual({ message: 'User %s not found (%d)', params: ['bob', 404], formatted: 'User bob not found (404)' });
    expect(e.data.message).toBeUndefined();
  });

  it('prefers formatted when sent, and logentry over message', () => {
    expect(norm({ logentry: { message: 'a %s', params: ['x'], formatted: 'A X' }, message: 'ignored' }).message).toBe('A X');
    expect(norm({ logentry: { message: 'Hello {0} and {1}', params: ['a', 'b'] } }).message).toBe('Hello a and b');
    expect(norm({ logentry: { message: 'Hi %(name)s', params: { name: 'z' } } }).message).toBe('Hi z');
  });

  it('drops an unreadable message', () => {
    const e = norm({ message: { nope: true } });
    expect(e.message).toBeUndefined();
    expect(e.dropped).toContain('message');
  });
});

describe('normalizeEvent: exception', () => {
  const frames = [
    { filename: 'node:internal/x', function: 'run', in_app: false, lineno: 1 },
    { filename: '/app/src/users.js', function: 'load', in_app: true, lineno: '42', colno: 7, vars: { id: 1 }, custom: 'kept' },
  ];

  it('accepts {values} and a bare list alike', () => {
    const a = norm({ exception: { values: [{ type: 'TypeError', value: 'x is undefined', stacktrace: { frames } }] } });
    const b = norm({ exception: [{ type: 'TypeError', value: 'x is undefined', stacktrace: { frames } }] });
    expect(a.exceptions).toEqual(b.exceptions);
    expect(a.exceptions[0].stacktrace?.frames[1]).toEqual({ filename: '/app/src/users.js', function: 'load', in_app: true, lineno: 42, colno: 7, vars: { id: 1 }, custom: 'kept' });
    expect(a).toMatchObject({ type: 'error', title: 'TypeError: x is undefined', culprit: '/app/src/users.js in load' });
    expect(a.data.exception).toEqual({ values: a.exceptions });
  });

  it('takes the culprit from the transaction when there is one', () => {
    expect(norm({ transaction: '/api/users', exception: [{ type: 'E', stacktrace: { frames } }] }).culprit).toBe('/api/users');
  });

  it('uses the last value as the raised exception', () => {
    const e = norm({ exception: { values: [{ type: 'IOError', value: 'disk' }, { type: 'AppError', value: 'save failed' }] } });
    expect(e.title).toBe('AppError: save failed');
  });

  it('drops bad values and bad frame fields, not the event', () => {
    const e = norm({ exception: { values: ['nope', {}, { type: 'E', value: { code: 1 }, mechanism: 'x', stacktrace: { frames: [{ lineno: 'ten', in_app: 'yes', function: 'f' }, 7] } }] } });
    expect(e.exceptions).toHaveLength(1);
    expect(e.exceptions[0]).toEqual({ type: 'E', value: '{"code":1}', stacktrace: { frames: [{ function: 'f' }] } });
    expect(e.dropped).toEqual(expect.arrayContaining(['exception.values[0]', 'exception.values[1]', 'exception.values[2].mechanism']));
  });

  it('treats a synthetic exception (captureMessage) as a message event', () => {
    const e = norm({
      exception: { values: [{ value: 'Checkout took too long', mechanism: { type: 'generic', handled: true, synthetic: true }, stacktrace: { frames } }] },
    });
    expect(e).toMatchObject({ type: 'default', message: 'Checkout took too long', title: 'Checkout took too long', culprit: '/app/src/users.js in load' });
  });

  it('trims very long stack traces around the raise site', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ function: `f${i}`, filename: 'a.js' }));
    const kept = norm({ exception: [{ type: 'E', stacktrace: { frames: many } }] }).exceptions[0].stacktrace?.frames ?? [];
    expect(kept).toHaveLength(250);
    expect(kept[0].function).toBe('f0');
    expect(kept[249].function).toBe('f399');
  });
});

describe('normalizeEvent: interfaces', () => {
  it('reads tags as an object or as pairs, as strings', () => {
    expect(norm({ tags: { a: 'x', n: 3, b: true, skip: null } }).tags).toEqual({ a: 'x', n: '3', b: 'true' });
    expect(norm({ tags: [['a', 'x'], ['n', 3], ['bad'], [{}, 'v']] }).tags).toEqual({ a: 'x', n: '3' });
    const e = norm({ tags: 'a=b' });
    expect(e.tags).toEqual({});
    expect(e.dropped).toContain('tags');
  });

  it('reads breadcrumbs as a list or {values}, newest 100', () => {
    const crumbs = Array.from({ length: 120 }, (_, i) => ({ message: `m${i}`, timestamp: 1714996800 + i, category: 'ui.click' }));
    const e = norm({ breadcrumbs: { values: crumbs } });
    expect(e.breadcrumbs).toHaveLength(100);
    expect(e.breadcrumbs[0]).toEqual({ message: 'm20', timestamp: '2024-05-06T12:00:20.000Z', category: 'ui.click' });
    expect(norm({ breadcrumbs: [{ message: 'x' }, 'junk'] }).breadcrumbs).toEqual([{ message: 'x' }]);
  });

  it('drops ip_address "{{auto}}" and offers the connection IP for people counting only', () => {
    const e = norm({ user: { id: 42, email: 'a@example.com', ip_address: '{{auto}}', segment: 'pro' } }, { clientIp: '203.0.113.9' });
    expect(e.user).toEqual({ id: '42', email: 'a@example.com', segment: 'pro' });
    expect(e.autoIp).toBe('203.0.113.9');
    expect(JSON.stringify(e.data)).not.toContain('203.0.113.9');
    expect(norm({ user: { ip_address: '2001:db8::1' } }).user).toEqual({ ip_address: '2001:db8::1' });
    const bad = norm({ user: { ip_address: 'localhost', id: { x: 1 } } });
    expect(bad.user).toBeUndefined();
    expect(bad.dropped).toEqual(expect.arrayContaining(['user.ip_address', 'user.id']));
  });

  it('reads the request, headers as pairs', () => {
    const e = norm({ request: { method: 'post', url: 'https://x.example/a?b=1', query_string: '?b=1', headers: { Accept: 'json', 'X-Multi': ['1', '2'] }, cookies: 'a=1', data: { q: 1 } } });
    expect(e.request).toEqual({ method: 'POST', url: 'https://x.example/a?b=1', query_string: 'b=1', headers: [['Accept', 'json'], ['X-Multi', '1'], ['X-Multi', '2']], cookies: 'a=1', data: { q: 1 } });
    expect(norm({ request: { headers: [['A', 'b'], ['C']] } }).request?.headers).toEqual([['A', 'b']]);
    expect(norm({ request: 'GET /' }).dropped).toContain('request');
  });

  it('gives each context a type', () => {
    expect(norm({ contexts: { os: { name: 'Linux' }, runtime: { type: 'runtime', name: 'node' }, bad: 3 } }).contexts).toEqual({
      os: { name: 'Linux', type: 'os' }, runtime: { type: 'runtime', name: 'node' },
    });
  });

  it('keeps a fingerprint of strings and drops a bad one', () => {
    expect(norm({ fingerprint: ['{{ default }}', 'db', 5] }).fingerprint).toEqual(['{{ default }}', 'db', '5']);
    const e = norm({ fingerprint: [{ a: 1 }] });
    expect(e.fingerprint).toBeUndefined();
    expect(e.dropped).toContain('fingerprint');
  });

  it('keeps "__proto__" keys as plain data', () => {
    const raw = JSON.parse('{"tags":{"__proto__":"x"},"contexts":{"__proto__":{"a":1}}}');
    const e = norm(raw);
    expect(Object.keys(e.tags)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(e.tags)).toBe(Object.prototype);
  });
});

describe('normalizeEvent: robustness', () => {
  it('never throws anything but invalid_event or invalid_event_id on odd shapes', () => {
    const odd: unknown[] = [null, 0, -1, 1e308, '', 'x', [], [[]], {}, { values: 'x' }, { values: [null] }, true, [1, 2], { frames: {} }];
    const keys = ['event_id', 'timestamp', 'level', 'platform', 'release', 'message', 'logentry', 'exception', 'tags', 'breadcrumbs', 'user', 'request', 'contexts', 'fingerprint', 'transaction'];
    for (const key of keys) {
      for (const value of odd) {
        const result = code(() => norm({ [key]: value, exception: key === 'exception' ? value : { values: [{ type: 'E', stacktrace: value }] } }));
        expect(['ok', '400 invalid_event_id']).toContain(result);
      }
    }
  });
});

describe('normalizeEvent: fields clients cannot forge', () => {
  it('replaces client-sent _meta, original_timestamp, received, title and type; keeps a sent culprit as Sentry does', () => {
    const e = norm({ message: 'real', _meta: { fake: 1 }, original_timestamp: 'x', received: 'x', title: 'forged', culprit: 'sent', type: 'transaction' });
    expect(e.data).toMatchObject({ title: 'real', culprit: 'sent', type: 'default', received: RECEIVED.toISOString() });
    expect(e.data._meta).toBeUndefined();
    expect(e.data.original_timestamp).toBeUndefined();
  });
});
