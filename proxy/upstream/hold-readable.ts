/**
 * A started Node stream body (subscription accounts' answers) taken over as an UpstreamBody: its chunks are
 * collected from now on, so that what arrives while a stream's first byte waits for its open row (run-call.ts) is
 * still delivered if the upstream breaks meanwhile — a Node stream destroyed with an error drops what it buffered.
 * The consumer's backpressure pauses the stream, as readChunks did.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { UpstreamBody } from './upstream-body.ts';

export function holdReadable(stream: Readable): UpstreamBody {
  const controller = {
    pause: () => stream.pause(),
    resume: () => stream.resume(),
    abort: (err: Error) => stream.destroy(err),
  } as unknown as Dispatcher.DispatchController;
  const body = new UpstreamBody(controller);
  stream.on('data', (chunk: Buffer) => body.push(chunk));
  stream.once('end', () => body.end());
  stream.once('error', (err) => body.fail(err));
  // A stream destroyed without an error never ends: as broken as one that errors.
  stream.once('close', () => {
    if (!stream.readableEnded) body.fail(stream.errored ?? new Error('The upstream body closed before its end.'));
  });
  return body;
}
