/**
 * Builds a response whose body is a new byte stream (a plan adapter's rewrite of the upstream body) while keeping
 * status and headers. The pipeline only iterates bodies (`for await`) and may destroy them, which a Node Readable
 * does; stopping the iteration ends the generator, which stops reading (and so releases) the upstream body.
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

type Body = Dispatcher.ResponseData['body'];

export function replaceBody(
  res: Dispatcher.ResponseData, chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, headers: Record<string, string> = {},
): Dispatcher.ResponseData {
  const body = Readable.from(chunks, { objectMode: false });
  // The pipeline reads bodies only as async iterables of bytes (and may destroy them): a Readable fits that use.
  return { ...res, headers: { ...res.headers, ...headers }, body: body as unknown as Body };
}

/** Reads a whole body (small: error answers and buffered JSON), at most `limit` bytes. */
export async function readAll(body: AsyncIterable<unknown>, limit = 16 * 1024 * 1024): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > limit) throw new Error('upstream answer too large');
    parts.push(b);
  }
  return Buffer.concat(parts);
}
