import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bodyStarted, readChunks } from './read-chunks.ts';

describe('reading a body chunk by chunk', () => {
  it('hands over every chunk in order and pauses while the consumer waits', async () => {
    const body = Readable.from(['a', 'b', 'c'].map((s) => Buffer.from(s)));
    const seen: string[] = [];
    let waiting = false;
    await readChunks(body, (c) => {
      expect(waiting).toBe(false);
      seen.push(c.toString());
      if (c.toString() !== 'b') return undefined;
      waiting = true;
      return new Promise((r) => setTimeout(() => ((waiting = false), r()), 20));
    });
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('rejects on a body error and on a consumer error (and stops reading)', async () => {
    const broken = new Readable({ read() { this.destroy(new Error('reset')); } });
    await expect(readChunks(broken, () => undefined)).rejects.toThrow('reset');
    const body = Readable.from([Buffer.from('a'), Buffer.from('b')]);
    let calls = 0;
    await expect(readChunks(body, () => { calls++; throw new Error('too big'); })).rejects.toThrow('too big');
    expect(calls).toBe(1);
    expect(body.destroyed).toBe(true);
  });
});

describe('waiting for a body to start', () => {
  it('resolves at the first chunk and readChunks then gets every chunk', async () => {
    const body = new PassThrough();
    const started = bodyStarted(body);
    body.write('a');
    await started;
    const seen: string[] = [];
    const done = readChunks(body, (c) => void seen.push(c.toString()));
    body.end('b');
    await done;
    expect(seen.join('')).toBe('ab');
  });

  it('rejects when the body breaks or closes before its first chunk', async () => {
    const broken = new PassThrough();
    const p = bodyStarted(broken);
    broken.destroy(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    await expect(p).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    const closed = new PassThrough();
    const q = bodyStarted(closed);
    closed.destroy();
    await expect(q).rejects.toThrow('before its first chunk');
  });
});
