/**
 * Events shaped as the SDKs send them (older protocol generations included), each with the title, culprit and
 * grouping that Sentry gives the same event. They go through the writer's preparation (scrub, normalise,
 * group), which both ingest endpoints (envelope and store) share.
 */
import { describe, expect, it } from 'vitest';
import { prepareEvent } from '../writer/prepare-event.ts';
import { defaultComponents } from './fingerprint-event.ts';
import { normalizeEvent } from './normalize-event.ts';

const RECEIVED = Date.parse('2024-05-06T12:00:00.000Z');

function prepare(event: Record<string, unknown>) {
  return prepareEvent({ projectId: 1, scrubKeys: [], retentionDays: 90, eventId: '9ec79c33ec9942ab8353589fcb2e04dc', receivedAt: RECEIVED }, Buffer.from(JSON.stringify(event)));
}

function components(event: Record<string, unknown>): string[] {
  return defaultComponents(normalizeEvent(event, { receivedAt: new Date(RECEIVED), retentionDays: 90 }));
}

/** sentry-elixir 7.x: the exception's frames sit at the event level, and the SDK names the culprit. */
function elixirEvent(fn = 'MyApp.Worker.run/1', culprit: string | null = 'MyApp.Worker.run/1') {
  return {
    event_id: 'b7f1b1f5c7f34b6e9c0a0d8f4e2a1c3d', culprit, timestamp: '2024-05-06T11:59:58.123456', message: '(RuntimeError) boom',
    tags: {}, level: 'error', platform: 'elixir', server_name: 'worker-1', environment: 'prod',
    exception: [{ type: 'RuntimeError', value: 'boom', module: null }],
    stacktrace: {
      frames: [
        { vars: {}, module: 'Elixir.Task.Supervised', lineno: 90, in_app: false, function: 'Task.Supervised.invoke_mfa/2', filename: 'lib/task/supervised.ex', context_line: null, pre_context: [], post_context: [] },
        { vars: {}, module: 'Elixir.MyApp.Worker', lineno: 12, in_app: true, function: fn, filename: 'lib/my_app/worker.ex', context_line: null, pre_context: [], post_context: [] },
      ],
    },
    release: null, extra: {}, user: {}, breadcrumbs: [], fingerprint: ['{{ default }}'], contexts: {}, request: {},
    sdk: { name: 'sentry-elixir', version: '7.2.0' }, modules: {},
  };
}

/** sentry-dotnet (ASP.NET Core), with the logger of the middleware that reported it. */
const dotnetEvent = {
  event_id: '5f1e8d4c3b2a41f0a9e8d7c6b5a4f3e2', timestamp: '2024-05-06T11:59:59.5+00:00', platform: 'csharp', level: 'error',
  logger: 'Microsoft.AspNetCore.Diagnostics.DeveloperExceptionPageMiddleware',
  logentry: { message: 'An unhandled exception has occurred while executing the request.' },
  exception: {
    values: [{
      type: 'System.DivideByZeroException', value: 'Attempted to divide by zero.', module: 'System.Private.CoreLib, Version=8.0.0.0, Culture=neutral, PublicKeyToken=7cec85d7bea7798e',
      thread_id: 17,
      stacktrace: {
        frames: [
          { function: 'InvokeHandlerMethodAsync', in_app: false, package: 'Microsoft.AspNetCore.Mvc.RazorPages, Version=8.0.0.0', module: 'Microsoft.AspNetCore.Mvc.RazorPages.Infrastructure.PageActionInvoker', lineno: 0 },
          { function: 'DivideByZero', in_app: true, package: 'myWebApp, Version=1.0.0.0', module: 'myWebApp.Pages.DivideZeroModel', abs_path: '/src/myWebApp/Pages/DivideZero.cshtml.cs', lineno: 21 },
        ],
      },
      mechanism: { type: 'Microsoft.AspNetCore.Diagnostics.DeveloperExceptionPageMiddleware', handled: false },
    }],
  },
  sdk: { name: 'sentry.dotnet.aspnetcore', version: '3.41.0' },
};

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
    const { meta } = prepare({
      platform: 'java', level: 'fatal', sdk: { name: 'sentry.java.android', version: '7.3.0' },
      exception: { values: [{ type: 'IllegalStateException', value: 'Fragment not attached', module: 'java.lang', thread_id: 2 }] },
      threads: {
        values: [
          { id: 1, name: 'FinalizerDaemon', stacktrace: { frames: [{ module: 'java.lang.Daemons$FinalizerDaemon', function: 'runInternal', in_app: false }] } },
          { id: 2, name: 'main', crashed: true, current: true, stacktrace: { frames: [
            { module: 'android.os.Looper', function: 'loop', in_app: false },
            { module: 'io.sentry.samples.android.MainActivity', function: 'onClick', in_app: true, lineno: 88 },
          ] } },
        ],
      },
    });
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
    const event = { platform: 'python', level: 'warning', logger: 'django.request', logentry: { message: 'Here is a new {foo}', params: { foo: 'error' } } };
    expect(prepare(event).meta.title).toBe('Here is a new error');
    expect(prepare({ ...event, logentry: { message: 'Here is a new {foo} {bar}', params: { foo: 'error' } } }).meta.title).toBe('Here is a new error {bar}');
  });

  it('still formats positional `%s` and `%(name)s`', () => {
    expect(prepare({ logentry: { message: 'User %s not found', params: ['ann'] } }).meta.title).toBe('User ann not found');
    expect(prepare({ logentry: { message: 'User %(name)s not found', params: { name: 'ann' } } }).meta.title).toBe('User ann not found');
  });
});

describe('SDK conformance: culprit of a message event (PHP)', () => {
  it('is the request URL when there is neither a transaction nor frames', () => {
    const { meta } = prepare({
      platform: 'php', level: 'error', message: 'Payment provider timed out', sdk: { name: 'sentry.php', version: '4.6.0' },
      request: { url: 'https://shop.example.com/checkout/pay', method: 'POST', headers: { Host: 'shop.example.com' } },
    });
    expect(meta.culprit).toBe('https://shop.example.com/checkout/pay');
  });
});
