import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { UpstreamBody } from './upstream-body.ts';

/** A controller like undici's: abort() reports back to the body at once with an error of its own. */
function fakeController(body?: () => UpstreamBody) {
  const c = { paused: false, aborted: undefined as Error | undefined, pauses: 0, resumes: 0 };
  const controller = {
    pause: () => ((c.paused = true), c.pauses++),
    resume: () => ((c.paused = false), c.resumes++),
    abort: (err: Error) => {
      c.aborted = err;
      body?.().fail(new Error('request aborted'));
    },
  } as unknown as Dispatcher.DispatchController;
  return { c, controller };
}

const b = (s: string) => Buffer.from(s);

describe('an upstream body', () => {
  it('keeps chunks that arrive before the consumer, then delivers the rest in order', async () => {
    const { controller } = fakeController();
    const body = new UpstreamBody(controller);
    body.push(b('a'));
    body.push(b('b'));
    const got: string[] = [];
    const done = body.consume((x) => void got.push(x.toString()));
    body.push(b('c'));
    body.end();
    await done;
    expect(got).toEqual(['a', 'b', 'c']);
  });

  it('pauses the upstream while the consumer waits and keeps the order of chunks that still arrive', async () => {
    const { c, controller } = fakeController();
    const body = new UpstreamBody(controller);
    const got: string[] = [];
    let release!: () => void;
    const done = body.consume((x) => {
      got.push(x.toString());
      return x.toString() === '1' ? new Promise<void>((r) => (release = r)) : undefined;
    });
    body.push(b('1'));
    expect(c.paused).toBe(true);
    body.push(b('2'));
    body.push(b('3'));
    body.end();
    expect(got).toEqual(['1']);
    release();
    await done;
    expect(got).toEqual(['1', '2', '3']);
    expect(c.pauses).toBe(1);
  });

  it('rejects with the upstream error, also when it came before the consumer (after the chunks that arrived)', async () => {
    const early = new UpstreamBody(fakeController().controller);
    early.push(b('x'));
    early.push(b('x2'));
    early.fail(Object.assign(new Error('timeout'), { code: 'UND_ERR_BODY_TIMEOUT' }));
    const before: string[] = [];
    await expect(early.consume((x) => void before.push(x.toString()))).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
    expect(before).toEqual(['x', 'x2']);

    const late = new UpstreamBody(fakeController().controller);
    const seen: string[] = [];
    const p = late.consume((x) => void seen.push(x.toString()));
    late.push(b('y'));
    late.fail(new Error('socket closed'));
    await expect(p).rejects.toThrow('socket closed');
    expect(seen).toEqual(['y']);
  });

  it('aborts the upstream when the consumer throws or its wait fails, and reports the consumer’s own error', async () => {
    let body!: UpstreamBody;
    const one = fakeController(() => body);
    body = new UpstreamBody(one.controller);
    const p = body.consume(() => {
      throw new Error('too large');
    });
    body.push(b('z'));
    await expect(p).rejects.toThrow('too large');
    expect(one.c.aborted?.message).toBe('too large');

    let other!: UpstreamBody;
    const two = fakeController(() => other);
    other = new UpstreamBody(two.controller);
    const q = other.consume(() => Promise.reject(new Error('client gone')));
    other.push(b('z'));
    await expect(q).rejects.toThrow('client gone');
    expect(two.c.aborted?.message).toBe('client gone');
  });

  it('is read once', () => {
    const body = new UpstreamBody(fakeController().controller);
    void body.consume(() => undefined);
    expect(() => body.consume(() => undefined)).toThrow('read once');
  });
});

describe('an upstream body that has not started', () => {
  it('started() resolves at the first chunk without reading it', async () => {
    const body = new UpstreamBody(fakeController().controller);
    const started = body.started();
    body.push(b('first'));
    await started;
    const got: string[] = [];
    const done = body.consume((x) => void got.push(x.toString()));
    body.end();
    await done;
    expect(got).toEqual(['first']);
  });

  it('started() resolves at the end of an empty body and at once when a chunk is already there', async () => {
    const empty = new UpstreamBody(fakeController().controller);
    const p = empty.started();
    empty.end();
    await p;
    const early = new UpstreamBody(fakeController().controller);
    early.push(b('x'));
    await early.started();
  });

  it('started() rejects when the body breaks before its first chunk', async () => {
    const body = new UpstreamBody(fakeController().controller);
    const p = body.started();
    body.fail(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    await expect(p).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    await expect(body.started()).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });

  it('delivers thousands of chunks queued before the consumer in order, pausing on backpressure', async () => {
    const { c, controller } = fakeController();
    const body = new UpstreamBody(controller);
    for (let i = 0; i < 5000; i++) body.push(b(String(i)));
    body.end();
    const got: string[] = [];
    await body.consume((x) => {
      got.push(x.toString());
      return got.length % 1000 === 0 ? Promise.resolve() : undefined;
    });
    expect(got).toEqual(Array.from({ length: 5000 }, (_, i) => String(i)));
    expect(c.pauses).toBe(5);
  });
});
