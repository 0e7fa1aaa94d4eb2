/**
 * Table-driven grouping tests: pairs of events that must land in the same group, or in different groups.
 * Events go through normalizeEvent first, as they do in the writer.
 */
import { describe, expect, it } from 'vitest';
import { culpritOf, defaultComponents, fingerprintEvent, titleOf } from './fingerprint-event.ts';
import { normalizeEvent } from './normalize-event.ts';
import { parameterizeMessage } from './parameterize-message.ts';
import { normalizePath } from './grouping-frames.ts';

const norm = (raw: Record<string, unknown>) => normalizeEvent(raw, { receivedAt: new Date('2024-05-06T12:00:00Z'), retentionDays: 90 });
const group = (raw: Record<string, unknown>) => fingerprintEvent(norm(raw));

type Frame = Record<string, unknown>;
const f = (file: string, fn: string, line: number, inApp = true, extra: Frame = {}): Frame => ({ filename: file, function: fn, lineno: line, colno: line * 3, in_app: inApp, ...extra });
const exc = (type: string, value: string, frames: Frame[], extra: Record<string, unknown> = {}) => ({ exception: { values: [{ type, value, stacktrace: { frames } }] }, ...extra });

const APP = [f('node:internal/timers', 'listOnTimeout', 569, false), f('/app/src/server.js', 'handle', 10), f('/app/src/users.js', 'loadUser', 42)];

const SAME: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ['same error, different line and column numbers',
    exc('TypeError', 'x is undefined', APP),
    exc('TypeError', 'x is undefined', [f('node:internal/timers', 'listOnTimeout', 600, false), f('/app/src/server.js', 'handle', 11), f('/app/src/users.js', 'loadUser', 57)])],
  ['same error, different message values (the frames decide)',
    exc('NotFound', 'user 42 not found', APP), exc('NotFound', 'user 43 not found', APP)],
  ['same in-app frames, different library frames around them',
    exc('E', 'x', [f('/node_modules/express/router.js', 'next', 1, false), ...APP.slice(1)]),
    exc('E', 'x', [f('/node_modules/koa/compose.js', 'dispatch', 9, false), ...APP.slice(1)])],
  ['only the 5 frames nearest the raise count',
    exc('E', 'x', [f('/app/a.js', 'a', 1), f('/app/b.js', 'b', 1), f('/app/c.js', 'c', 1), f('/app/d.js', 'd', 1), f('/app/e.js', 'e', 1), f('/app/g.js', 'g', 1)]),
    exc('E', 'x', [f('/app/z.js', 'z', 1), f('/app/b.js', 'b', 1), f('/app/c.js', 'c', 1), f('/app/d.js', 'd', 1), f('/app/e.js', 'e', 1), f('/app/g.js', 'g', 1)])],
  ['same URL path on other hosts, with other query strings and a new bundle hash',
    exc('E', 'x', [f('https://cdn-1.example.com/static/js/main.3f2a1b9c.js?v=1', 'render', 1)]),
    exc('E', 'x', [f('https://cdn-2.example.com/static/js/main.77aa00ff.js?v=2#x', 'render', 900)])],
  ['module wins over the file path',
    exc('E', 'x', [f('/srv/releases/1/app/users.py', 'load', 1, true, { module: 'app.users' })]),
    exc('E', 'x', [f('/srv/releases/2/app/users.py', 'load', 9, true, { module: 'app.users' })])],
  ['<anonymous> and [native code] frames are ignored',
    exc('E', 'x', [f('/app/a.js', 'a', 1), f('<anonymous>', 'eval', 1)]),
    exc('E', 'x', [f('/app/a.js', 'a', 2), f('[native code]', 'forEach', 1)])],
  ['engine decorations of function names are ignored',
    exc('E', 'x', [f('/app/a.js', 'async UserService.load', 1), f('/app/b.js', 'Object.run [as handler]', 1)]),
    exc('E', 'x', [f('/app/a.js', 'UserService.load', 1), f('/app/b.js', 'Object.run', 1)])],
  ['no frame marked in_app: all frames are used, lines ignored',
    exc('E', 'x', [f('/lib/a.js', 'a', 1, false), f('/lib/b.js', 'b', 1, false)]),
    exc('E', 'x', [f('/lib/a.js', 'a', 5, false), f('/lib/b.js', 'b', 7, false)])],
  ['the raised (last) exception decides, not its causes',
    { exception: { values: [{ type: 'IOError', value: 'a' }, { type: 'AppError', value: 'x', stacktrace: { frames: APP } }] } },
    { exception: { values: [{ type: 'TimeoutError', value: 'b' }, { type: 'AppError', value: 'x', stacktrace: { frames: APP } }] } }],
  ['exception without frames: the parameterised value groups',
    exc('DbError', 'duplicate key value 17 in "users_pkey"', []), exc('DbError', 'duplicate key value 9000 in "users_pkey"', [])],
  ['message with ids, numbers, emails, urls, ips, uuids, hex, quoted values',
    { message: 'User 42 (bob@example.com) from 10.0.0.1 failed GET https://api.example.com/u/42?x=1 req 0f8fad5b-d9cb-469f-a165-70867728950e hash deadbeef1234 "secret thing"' },
    { message: 'User 7 (eve@example.org) from 192.168.1.20 failed GET https://api.example.com/u/7 req 7c9e6679-7425-40de-944b-e07fc1f90ae7 hash 0a1b2c3d4e5f6 "other"' }],
  ['message template: params never split groups',
    { logentry: { message: 'Order %s failed', params: ['A-1'] } }, { logentry: { message: 'Order %s failed', params: ['Z-9'] } }],
  ['captureMessage (synthetic exception): grouped by message, not the capture site',
    { message: 'Cart is empty', exception: { values: [{ value: 'Cart is empty', mechanism: { synthetic: true }, stacktrace: { frames: APP } }] } },
    { message: 'Cart is empty', exception: { values: [{ value: 'Cart is empty', mechanism: { synthetic: true }, stacktrace: { frames: [f('/app/other.js', 'elsewhere', 1)] } }] } }],
  ['captureMessage without a message field uses the synthetic value',
    { exception: { values: [{ value: 'Job 17 stalled', mechanism: { type: 'generic', synthetic: true }, stacktrace: { frames: APP } }] } },
    { message: 'Job 99 stalled' }],
  ['the same message at different levels (the type, not the level, stands beside the message)',
    { message: 'Disk low', level: 'warning' }, { message: 'Disk low', level: 'error' }],
  ['a fingerprint of only {{ default }} is the default grouping',
    exc('E', 'x', APP), exc('E', 'x', APP, { fingerprint: ['{{ default }}'] })],
  ['{{default}} without spaces is the same variable',
    exc('E', 'x', APP, { fingerprint: ['{{default}}', 'db'] }), exc('E', 'x', APP, { fingerprint: ['{{ default }}', 'db'] })],
  ['a custom fingerprint replaces everything else',
    exc('E', 'x', APP, { fingerprint: ['payment-gateway-down'] }), exc('OtherError', 'y', [f('/app/z.js', 'z', 1)], { fingerprint: ['payment-gateway-down'] })],
];

const DIFFERENT: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ['different exception types', exc('TypeError', 'x', APP), exc('RangeError', 'x', APP)],
  ['different in-app frames', exc('E', 'x', APP), exc('E', 'x', [...APP.slice(0, 2), f('/app/src/orders.js', 'loadOrder', 42)])],
  ['different functions in the same file', exc('E', 'x', [f('/app/a.js', 'one', 1)]), exc('E', 'x', [f('/app/a.js', 'two', 1)])],
  ['different paths with the same basename', exc('E', 'x', [f('/app/users/index.js', 'f', 1)]), exc('E', 'x', [f('/app/orders/index.js', 'f', 1)])],
  ['different messages', { message: 'Cache miss' }, { message: 'Cache hit ratio low' }],
  ['a message event and an exception event', { message: 'E: x' }, exc('E', 'x', [])],
  ['default vs default plus a custom part', exc('E', 'x', APP), exc('E', 'x', APP, { fingerprint: ['{{ default }}', 'tenant-a'] })],
  ['custom parts differ', exc('E', 'x', APP, { fingerprint: ['{{ default }}', 'tenant-a'] }), exc('E', 'x', APP, { fingerprint: ['{{ default }}', 'tenant-b'] })],
  ['a custom literal never equals a default component', { message: 'x', fingerprint: ['type:default', 'message:x'] }, { message: 'x' }],
  ['exceptions without frames and different words', exc('DbError', 'connection refused', []), exc('DbError', 'deadlock detected', [])],
];

describe('fingerprintEvent: same group', () => {
  it.each(SAME)('%s', (_name, a, b) => {
    const ga = group(a);
    const gb = group(b);
    expect(ga.hash, `${JSON.stringify(ga.components)} vs ${JSON.stringify(gb.components)}`).toBe(gb.hash);
  });
});

describe('fingerprintEvent: different groups', () => {
  it.each(DIFFERENT)('%s', (_name, a, b) => {
    expect(group(a).hash).not.toBe(group(b).hash);
  });
});

describe('fingerprintEvent: components', () => {
  it('lists type and frames, without line numbers', () => {
    expect(group(exc('TypeError', 'x', APP)).components).toEqual(['type:TypeError', 'frame:/app/src/server.js|handle', 'frame:/app/src/users.js|loadUser']);
  });

  it('expands {{ default }} in place', () => {
    expect(group(exc('E', 'x', [f('/app/a.js', 'a', 1)], { fingerprint: ['tenant', '{{ default }}', 'x'] })).components)
      .toEqual(['custom:tenant', 'type:E', 'frame:/app/a.js|a', 'custom:x']);
  });

  it('gives message events their type and parameterised message', () => {
    expect(group({ message: 'Payment 123 failed', level: 'warning' }).components).toEqual(['type:default', 'message:Payment <num> failed']);
  });

  it('gives message events their hash under the previous rule (level and message) too', () => {
    const legacy = group({ message: 'Payment 123 failed', level: 'warning', fingerprint: ['{{ default }}', 'db'] }).legacyHash;
    expect(legacy).toMatch(/^[0-9a-f]{32}$/);
    expect(group({ message: 'Payment 7 failed', level: 'warning', fingerprint: ['{{ default }}', 'db'] }).legacyHash).toBe(legacy);
    expect(group({ message: 'Payment 7 failed', level: 'error', fingerprint: ['{{ default }}', 'db'] }).legacyHash).not.toBe(legacy);
  });

  it('gives exception events no previous hash (their rule did not change)', () => {
    expect(group(exc('TypeError', 'x', APP)).legacyHash).toBeUndefined();
  });

  it('falls back for events with neither exception nor message', () => {
    expect(defaultComponents(norm({ transaction: '/x' }))).toEqual(['fallback', 'level:error', 'transaction:/x']);
  });

  it('hashes to 32 lowercase hex', () => {
    expect(group({ message: 'x' }).hash).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('parameterizeMessage', () => {
  it.each([
    ['Timeout after 30s', 'Timeout after 30s'],
    ['Timeout after 30 s', 'Timeout after <num> s'],
    ['Order #1234 failed', 'Order #<num> failed'],
    ['mail bob.smith+x@example.co.uk bounced', 'mail <email> bounced'],
    ['GET https://api.example.com/v1/users?id=5 failed', 'GET <url> failed'],
    ['id 550e8400-e29b-41d4-a716-446655440000 gone', 'id <uuid> gone'],
    ['id 550e8400e29b41d4a716446655440000 gone', 'id <uuid> gone'],
    ['from 10.1.2.3:8080 and 2001:db8:85a3:0:0:8a2e:370:7334', 'from <ip> and <ip>'],
    ['at 2024-05-06T12:00:00Z and 12:30:45', 'at <date> and <time>'],
    ['pointer 0x7ffee4b2 commit a3f9c2e81b', 'pointer <hex> commit <hex>'],
    ["key 'abc' and \"def\" and `ghi`", 'key <quoted> and <quoted> and <quoted>'],
    ["can't find user's file", "can't find user's file"],
    ['utf8 and v2 and std::vector stay', 'utf8 and v2 and std::vector stay'],
    ['value -3.5 out of range', 'value <num> out of range'],
  ])('%s → %s', (input, expected) => {
    expect(parameterizeMessage(input)).toBe(expected);
  });

  it('stays fast on hostile input', () => {
    const t0 = performance.now();
    parameterizeMessage('a'.repeat(100_000) + '@');
    parameterizeMessage(`'${'x'.repeat(100_000)}`);
    parameterizeMessage('1.'.repeat(50_000));
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('normalizePath', () => {
  it.each([
    ['https://cdn.example.com/static/js/main.3f2a1b9c.js?v=2#x', '/static/js/main.js'],
    ['webpack:///./src/App.tsx', '/src/app.tsx'],
    ['app:///index.android.bundle', '/index.android.bundle'],
    ['file:///C:/Users/Dev/app.js', '/c:/users/dev/app.js'],
    ['C:\\src\\App.cs', 'c:/src/app.cs'],
    ['/app/src/users.js', '/app/src/users.js'],
  ])('%s → %s', (input, expected) => {
    expect(normalizePath(input)).toBe(expected);
  });
});

describe('titleOf and culpritOf', () => {
  it.each([
    [exc('TypeError', "Cannot read properties of undefined (reading 'id')", APP), "TypeError: Cannot read properties of undefined (reading 'id')"],
    [exc('TypeError', '', APP), 'TypeError'],
    [exc('E', 'first line\nsecond line', []), 'E: first line'],
    [{ message: 'Hello\nworld' }, 'Hello'],
    [{ exception: { values: [{ value: 'from captureMessage', mechanism: { synthetic: true } }] } }, 'from captureMessage'],
    [{}, '<unlabeled event>'],
    [{ message: 'x'.repeat(500) }, `${'x'.repeat(199)}…`],
  ])('title of %j', (raw, title) => {
    expect(titleOf(norm(raw))).toBe(title);
  });

  it('culprit is the transaction, else the in-app frame nearest the raise', () => {
    expect(culpritOf(norm(exc('E', 'x', APP, { transaction: 'GET /users/:id' })))).toBe('GET /users/:id');
    expect(culpritOf(norm(exc('E', 'x', APP)))).toBe('/app/src/users.js in loadUser');
    expect(culpritOf(norm(exc('E', 'x', [f('/x.py', 'g', 1, true, { module: 'app.views' }), f('/lib.py', 'h', 2, false)])))).toBe('app.views in g');
    expect(culpritOf(norm({ message: 'x' }))).toBe('');
  });
});
