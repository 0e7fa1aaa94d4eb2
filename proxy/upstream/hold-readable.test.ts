import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { holdReadable } from './hold-readable.ts';

describe('a Node stream body held as an upstream body', () => {
  it('delivers what arrived before it broke, then the error', async () => {
    const stream = new PassThrough();
    const body = holdReadable(stream);
    stream.write('a');
    stream.write('b');
    await tick();
    stream.destroy(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    await tick();
    const got: string[] = [];
    await expect(body.consume((c) => void got.push(c.toString()))).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(got).toEqual(['a', 'b']);
  });

  it('reads to the end, pausing the stream while the consumer waits', async () => {
    const stream = new PassThrough();
    const body = holdReadable(stream);
    let release!: () => void;
    const got: string[] = [];
    const done = body.consume((c) => {
      got.push(c.toString());
      return got.length === 1 ? new Promise<void>((r) => (release = r)) : undefined;
    });
    stream.write('1');
    await tick();
    expect(stream.isPaused()).toBe(true);
    stream.end('2');
    release();
    await done;
    expect(got.join('')).toBe('12');
  });

  it('a stream closed without an error and without its end is broken', async () => {
    const stream = new PassThrough();
    const body = holdReadable(stream);
    stream.destroy();
    await expect(body.consume(() => undefined)).rejects.toThrow('closed before its end');
  });

  it('the consumer failing destroys the stream', async () => {
    const stream = new PassThrough();
    const body = holdReadable(stream);
    const p = body.consume(() => {
      throw new Error('too large');
    });
    stream.write('x');
    await expect(p).rejects.toThrow('too large');
    expect(stream.destroyed).toBe(true);
  });
});
