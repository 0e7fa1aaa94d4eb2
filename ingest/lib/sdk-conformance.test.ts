/**
 * Events shaped as the SDKs send them (older protocol generations included), each with the title, culprit and
 * grouping that Sentry gives the same event. They go through the writer's preparation (scrub, normalise,
 * group), which both ingest endpoints (envelope and store) share.
 */
import { describe, expect, it } from 'vitest';
import { prepareEvent } from '../writer/prepare-event.ts';
import { scriptModule } from './event-title.ts';
import { defaultComponents } from './fingerprint-event.ts';
import { normalizeEvent } from './normalize-event.ts';
import { androidEvent, djangoEvent, dotnetEvent, elixirEvent, phpEvent, ravenPythonException, ravenPythonMessage, SDK_CORPUS } from '../../test/fixtures/sdk-events.ts';

const RECEIVED = Date.parse('2024-05-06T12:00:00.000Z');

function prepare(event: Record<string, unknown>) {
  return prepareEvent({ projectId: 1, scrubKeys: [], retentionDays: 90, eventId: '9ec79c33ec9942ab8353589fcb2e04dc', receivedAt: RECEIVED }, Buffer.from(JSON.stringify(event)));
}

function components(event: Record<string, unknown>): string[] {
  return defaultComponents(normalizeEvent(event, { receivedAt: new Date(RECEIVED), retentionDays: 90 }));
}

describe('SDK conformance: frames outside the exception (Elixir, older protocol)', () => {
  it('moves the event-level stack trace under the exception: grouped and named by its frames', () => {
    const { meta, row } = prepare(elixirEvent('MyApp.Worker.run/1', null));
    expect(meta.title).toBe('RuntimeError: boom');
    expect(meta.culprit).toBe('Elixir.MyApp.Worker in MyApp.Worker.run/1');
    const stored = row.data.exception as { values: Array<{ stacktrace?: { frames: unknown[] } }> };
    expect(stored.values[0].stacktrace?.frames).toHaveLength(2);
    expect(row.data.stacktrace).toBeUndefined();
    expect(components(elixirEvent('MyApp.Worker.run/1', null))).toEqual(['type:RuntimeError', 'frame:elixir.myapp.worker|MyApp.Worker.run/1']);
  });

  it('a different failing function is a different issue', () => {
    expect(prepare(elixirEvent('MyApp.Worker.run/1')).meta.fingerprint).not.toBe(prepare(elixirEvent('MyApp.Mailer.send/2')).meta.fingerprint);
  });

  it('keeps both stack traces when the exception already has one (which the event-level one belongs to is unclear)', () => {
    const event = elixirEvent();
    const own = { frames: [{ module: 'Elixir.MyApp.Other', function: 'MyApp.Other.go/0', in_app: true }] };
    const { row } = prepare({ ...event, exception: [{ type: 'RuntimeError', value: 'boom', stacktrace: own }] });
    expect((row.data.exception as { values: Array<{ stacktrace: unknown }> }).values[0].stacktrace).toEqual(own);
    expect(row.data.stacktrace).toEqual(event.stacktrace);
  });

  it('uses the culprit the SDK sent, as sent', () => {
    expect(prepare(elixirEvent()).meta.culprit).toBe('MyApp.Worker.run/1');
  });

  it('a message event with an event-level stack trace takes its culprit from it', () => {
    const { meta } = prepare({ message: 'cache miss', platform: 'python', stacktrace: { frames: [{ module: 'shop.views', function: 'cart', in_app: true }] } });
    expect(meta.culprit).toBe('shop.views in cart');
  });
});

describe('SDK conformance: frames in the threads interface (Java, Android)', () => {
  it('attaches the stack trace of the thread the exception was raised in', () => {
    const { meta } = prepare(androidEvent);
    expect(meta).toMatchObject({ title: 'IllegalStateException: Fragment not attached', culprit: 'io.sentry.samples.android.MainActivity in onClick' });
  });
});

describe('SDK conformance: culprit keeps the case of module names (.NET, Android)', () => {
  it('shows the module as sent; grouping still ignores case', () => {
    const { meta } = prepare(dotnetEvent);
    expect(meta).toMatchObject({ title: 'System.DivideByZeroException: Attempted to divide by zero.', culprit: 'myWebApp.Pages.DivideZeroModel in DivideByZero' });
    // Unchanged grouping: the same components as before the culprit kept its case, so stored issues keep their events.
    expect(components(dotnetEvent)).toEqual(['type:System.DivideByZeroException', 'frame:mywebapp.pages.dividezeromodel|DivideByZero']);
  });
});

describe('SDK conformance: over-long and unreadable values are cut or dropped field by field', () => {
  it('cuts a 65-character logger at 64 with `...` and says so in _meta', () => {
    const { row } = prepare(dotnetEvent);
    expect(row.data.logger).toBe('Microsoft.AspNetCore.Diagnostics.DeveloperExceptionPageMiddle...');
    expect((row.data.logger as string).length).toBe(64);
    expect(row.data._meta).toMatchObject({ truncated: { logger: 65 } });
  });

  it('cuts a culprit of 10,000 characters at 200; drops a logger of binary bytes; the event is stored', () => {
    const { meta, row } = prepare({ message: 'x', culprit: 'c'.repeat(10_000), logger: '\u0001\u0002\u00ff\u0000' });
    expect(meta.culprit).toBe(`${'c'.repeat(197)}...`);
    expect(row.data.logger).toBeUndefined();
    expect(row.data._meta).toMatchObject({ truncated: { culprit: 10_000 }, dropped: ['logger'] });
  });
});

describe('SDK conformance: messages with parameters (Python/Django)', () => {
  it('formats named `{name}` parameters when no formatted text was sent', () => {
    const event = djangoEvent;
    expect(prepare(event).meta.title).toBe('Here is a new error');
    expect(prepare({ ...event, logentry: { message: 'Here is a new {foo} {bar}', params: { foo: 'error' } } }).meta.title).toBe('Here is a new error {bar}');
  });

  it('leaves placeholders without their parameter as written, ignores extra parameters, and stores the event', () => {
    const { meta, row } = prepare({ logentry: { message: '%s failed %s times', params: ['sync'] } });
    expect(meta.title).toBe('sync failed %s times');
    expect(prepare({ logentry: { message: 'no placeholder', params: ['a', 'b'] } }).meta.title).toBe('no placeholder');
    expect(prepare({ logentry: { message: 'Hello {name}', params: ['positional'] } }).meta.title).toBe('Hello {name}');
    expect(row.data._meta).toBeUndefined();
  });

  it('an empty or null culprit is derived, not recorded as dropped', () => {
    for (const culprit of ['', '  ', null]) {
      const { meta, row } = prepare({ ...elixirEvent(), culprit });
      expect(meta.culprit).toBe('Elixir.MyApp.Worker in MyApp.Worker.run/1');
      expect(row.data._meta).toBeUndefined();
    }
  });

  it('still formats positional `%s` and `%(name)s`', () => {
    expect(prepare({ logentry: { message: 'User %s not found', params: ['ann'] } }).meta.title).toBe('User ann not found');
    expect(prepare({ logentry: { message: 'User %(name)s not found', params: { name: 'ann' } } }).meta.title).toBe('User ann not found');
  });
});

describe('SDK conformance: culprit of a message event (PHP)', () => {
  it('is the request URL when there is neither a transaction nor frames', () => {
    const { meta } = prepare(phpEvent);
    expect(meta.culprit).toBe('https://shop.example.com/checkout/pay');
  });
});

describe('SDK conformance: protocol 4 to 6 (raven clients)', () => {
  it('reads `sentry.interfaces.*` names as today\'s and Python\'s numeric levels', () => {
    const { meta, row } = prepare(ravenPythonException);
    expect(meta).toMatchObject({ title: 'ZeroDivisionError: division by zero', culprit: 'shop.views in checkout', level: 'error' });
    expect(row.data).toMatchObject({ request: { url: 'https://shop.example.com/checkout/', method: 'POST' }, user: { id: '42' } });
    expect(row.data['sentry.interfaces.Exception']).toBeUndefined();
    expect(components(ravenPythonException)).toEqual(['type:ZeroDivisionError', 'frame:shop.views|checkout']);
    const m = prepare(ravenPythonMessage);
    expect(m.meta).toMatchObject({ title: 'Cart c-991 is empty', level: 'warning', type: 'default' });
    expect(m.row.data.logentry).toEqual({ message: 'Cart %s is empty', params: ['c-991'], formatted: 'Cart c-991 is empty' });
  });

  it('today\'s name wins when both are sent; an unknown numeric level is dropped', () => {
    const { meta, row } = prepare({ ...ravenPythonMessage, level: 45, logentry: { message: 'new name' } });
    expect(meta).toMatchObject({ title: 'new name', level: 'error' });
    expect(row.data._meta).toMatchObject({ dropped: ['level'] });
  });
});

describe('SDK conformance: culprit forms per platform', () => {
  it.each([
    ['https://shop.example.com/static/js/main.3f2a1b9c.js', 'main'],
    ['https://cdn.example.com/js/v1.0/foo/bar/baz.min.js?v=3', 'foo/bar/baz'],
    ['https://cdn.example.com/assets/0123456789abcdef0123456789abcdef/app/cart.js', 'app/cart'],
    ['https://example.com/_next/static/chunks/pages/cart-8f9e7d6c5b4a.js', 'chunks/pages/cart'],
    ['https://example.com/', '<unknown module>'],
  ])('a browser script %s is the module %s', (url, module) => {
    expect(scriptModule(url)).toBe(module);
  });

  it('Node frames are written function(location); a frame\'s own platform wins over the event\'s', () => {
    const node = { platform: 'node', exception: [{ type: 'E', stacktrace: { frames: [{ filename: '/app/src/users.js', function: 'loadUser', in_app: true }] } }] };
    expect(prepare(node).meta.culprit).toBe('loadUser(/app/src/users.js)');
    const mixed = { platform: 'javascript', exception: [{ type: 'E', stacktrace: { frames: [{ function: 'crash', platform: 'native', package: 'libapp.so', in_app: true }] } }] };
    expect(prepare(mixed).meta.culprit).toBe('crash');
  });
});

describe('SDK conformance: the corpus', () => {
  it.each(SDK_CORPUS.map((c) => [c.name, c] as const))('%s: title and culprit as Sentry gives them', (_name, c) => {
    expect(prepare(c.event).meta).toMatchObject({ title: c.title, culprit: c.culprit });
  });
});
