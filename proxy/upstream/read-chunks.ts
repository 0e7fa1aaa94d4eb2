/**
 * Reading an upstream body chunk by chunk: an UpstreamBody delivers its chunks itself; a Node stream (subscription
 * accounts' answers) is read with 'data' events rather than an async iterator: one callback per chunk, no promise
 * per chunk (about 5 µs less per request, measured). Either way with backpressure: while the promise `onChunk`
 * returns is pending (the client's socket is full) the body is paused.
 */
import type { Readable } from 'node:stream';
import { UpstreamBody } from './upstream-body.ts';

export function readChunks(body: Readable | UpstreamBody, onChunk: (chunk: Buffer) => Promise<void> | undefined): Promise<void> {
  if (body instanceof UpstreamBody) return body.consume(onChunk);
  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      body.off('data', onData);
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      let wait: Promise<void> | undefined;
      try {
        wait = onChunk(chunk);
      } catch (err) {
        body.destroy();
        fail(err);
        return;
      }
      if (wait) {
        body.pause();
        wait.then(() => body.resume(), fail);
      }
    };
    body.on('data', onData);
    body.once('end', () => {
      if (!failed) resolve();
    });
    body.once('error', fail);
  });
}

/**
 * Resolves once the body's first chunk (or its end) has arrived, without taking it; rejects when the body breaks
 * before. A Node stream is watched with 'readable' (which buffers without flowing) and left paused for readChunks.
 */
export function bodyStarted(body: Readable | UpstreamBody): Promise<void> {
  if (body instanceof UpstreamBody) return body.started();
  if (body.readableLength > 0 || body.readableEnded) return Promise.resolve();
  if (body.errored) return Promise.reject(body.errored);
  return new Promise((resolve, reject) => {
    const done = (err?: unknown) => {
      body.off('readable', onReadable);
      body.off('error', done);
      body.off('close', onClose);
      if (err !== undefined) reject(err);
      else resolve();
    };
    const onReadable = () => done();
    // A stream destroyed without an error never ends: as broken as one that errors.
    const onClose = () => done(body.errored ?? new Error('The upstream body closed before its first chunk.'));
    body.on('readable', onReadable);
    body.once('error', done);
    body.once('close', onClose);
  });
}
