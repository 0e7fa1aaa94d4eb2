/**
 * Bounded decompression of ingest request bodies.
 *
 * `Content-Encoding` lists the codings in the order they were applied (RFC 9110 §8.4), so they are undone
 * right to left. Supported: identity, gzip (and x-gzip), deflate (zlib-wrapped or raw: both are sent in the
 * wild, so the zlib header is detected), br, zstd.
 *
 * Memory is bounded for any input: the codings are undone as one chain of streams, so an intermediate stage never
 * holds more than a chunk, and the output is copied into one buffer of `maxBytes` (only the pages written become
 * resident); past it the chain stops at once. The whole `maxBytes` is taken from the request's share of the
 * process-wide budget (inflate-budget.ts) before the chain starts, so that when all requests together would hold
 * too much the next one is refused (503 ingest_overloaded) before it allocates anything. A small body (the usual
 * event) is first inflated synchronously up to SYNC_MAX_BYTES and counted once inflated: that costs a few
 * microseconds where the thread-pool round trips of a stream cost tens, blocks the event loop for at most about a
 * millisecond, and only one runs at a time.
 *
 * peekFirstLine undoes the codings only as far as the first newline (at most 64 KB): enough to read the
 * envelope header's `dsn`, so that a request whose key is only there is refused before the rest is inflated.
 *
 * Refusals: a coding we do not know → unsupported_content_encoding (415); bytes that are not what their
 * coding claims (bad header, corrupt or truncated stream) → invalid_compression (400); too much output →
 * envelope_too_large (413) or the code the caller names (event_too_large for a /store/ body).
 */
import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { isSvcError, svcError, type ErrorCode } from '../../core/errors.ts';
import type { BudgetLease } from './inflate-budget.ts';
import { EVENT_MAX_BYTES } from './ingest-limits.ts';

export type TooLargeCode = Extract<ErrorCode, 'envelope_too_large' | 'event_too_large'>;

type Coding = 'gzip' | 'deflate' | 'br' | 'zstd';

const CODINGS: Record<string, Coding | 'identity'> = {
  identity: 'identity',
  gzip: 'gzip',
  'x-gzip': 'gzip',
  deflate: 'deflate',
  br: 'br',
  zstd: 'zstd',
};

/** More stages than this is not a real client: refuse rather than loop through them. */
const MAX_STAGES = 4;

/** Largest first line peekFirstLine inflates (an envelope header with a dsn is a few hundred bytes). */
export const PEEK_MAX_BYTES = 64 * 1024;

/**
 * Undo `contentEncoding` on `body`, producing at most `maxBytes` bytes.
 * @see https://www.rfc-editor.org/rfc/rfc9110#field.content-encoding
 */
export async function decompressBody(
  body: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
  tooLarge: TooLargeCode = 'envelope_too_large',
  lease?: BudgetLease,
): Promise<Buffer> {
  const stages = parseContentEncoding(contentEncoding).reverse();
  if (stages.length === 0) {
    if (body.length > maxBytes) throw tooLargeError(tooLarge, maxBytes);
    return body;
  }
  if (stages.length === 1 && body.length <= SYNC_MAX_INPUT && !declaresLargeOutput(body, stages[0])) {
    const out = decodeSync(body, stages[0], maxBytes, tooLarge);
    if (out) {
      lease?.add(out.length);
      return out;
    }
  }
  return decodeChain(body, stages, { limit: maxBytes, tooLarge, lease });
}

/** The codings named by a Content-Encoding value, identity removed; throws for unknown ones. */
export function parseContentEncoding(contentEncoding: string | undefined): Coding[] {
  if (contentEncoding === undefined) return [];
  const stages: Coding[] = [];
  for (const raw of contentEncoding.split(',')) {
    const name = raw.trim().toLowerCase();
    if (name === '') continue;
    const coding = Object.hasOwn(CODINGS, name) ? CODINGS[name] : undefined;
    if (coding === undefined) {
      throw svcError('unsupported_content_encoding', `The content encoding "${name.slice(0, 40)}" is not supported; use gzip, deflate, br or zstd.`, { encoding: name.slice(0, 40) });
    }
    if (coding !== 'identity') stages.push(coding);
  }
  if (stages.length > MAX_STAGES) throw svcError('unsupported_content_encoding', `At most ${MAX_STAGES} content codings may be stacked.`);
  return stages;
}

/**
 * The decoded body up to and including its first newline, or its first PEEK_MAX_BYTES (or all of it when
 * shorter), inflating no further. Corrupt compression before that point is invalid_compression.
 */
export async function peekFirstLine(body: Buffer, contentEncoding: string | undefined, lease?: BudgetLease): Promise<Buffer> {
  const stages = parseContentEncoding(contentEncoding).reverse();
  if (stages.length === 0) {
    const end = body.indexOf(0x0a);
    return body.subarray(0, Math.min(end === -1 ? body.length : end + 1, PEEK_MAX_BYTES));
  }
  const head = await decodeChain(body, stages, { limit: PEEK_MAX_BYTES, lease, untilNewline: true });
  // The share of the peek goes back: the caller keeps only the dsn read from it.
  lease?.drop(head.length);
  return head;
}

/**
 * A legacy `/store/` body: plain JSON (starts with `{`), or base64 of JSON, or base64 of zlib-compressed JSON,
 * sent without any Content-Encoding (as Relay's `decode_bytes` accepts). Returns the JSON bytes.
 * Not base64 → invalid_event (it is neither JSON nor an encoded event); base64 of something that is neither
 * JSON nor zlib → invalid_compression.
 */
export async function decodeLegacyStoreBody(buf: Buffer, maxBytes: number = EVENT_MAX_BYTES, lease?: BudgetLease): Promise<Buffer> {
  const start = skipWhitespace(buf, 0);
  if (start === buf.length || buf[start] === 0x7b /* { */) {
    if (buf.length > maxBytes) throw tooLargeError('event_too_large', maxBytes);
    return buf;
  }
  // Base64 of at most maxBytes (zlib-compressed or not, line breaks included) is well under twice that: a longer
  // body cannot fit, and is refused before it is copied into strings.
  if (buf.length > 2 * maxBytes) throw tooLargeError('event_too_large', maxBytes);
  const text = buf.toString('latin1').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw svcError('invalid_event', 'The store body is neither a JSON object nor base64.');
  const binary = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
  lease?.add(binary.length);
  if (binary[skipWhitespace(binary, 0)] === 0x7b) {
    if (binary.length > maxBytes) throw tooLargeError('event_too_large', maxBytes);
    return binary;
  }
  const out = binary.length <= SYNC_MAX_INPUT ? decodeSync(binary, 'zlib', maxBytes, 'event_too_large') : undefined;
  if (out) {
    lease?.add(out.length);
    return out;
  }
  return decodeChain(binary, ['zlib'], { limit: maxBytes, tooLarge: 'event_too_large', lease });
}

export function looksZlibWrapped(b: Buffer): boolean {
  return b.length >= 2 && (b[0] & 0x0f) === 8 && b[0] >> 4 <= 7 && (b[0] * 256 + b[1]) % 31 === 0;
}

/**
 * A gzip member ends with its size mod 2^32 (RFC 1952 §2.3.1). When it says the output is past SYNC_MAX_BYTES,
 * the synchronous attempt would only make a megabyte of garbage before giving up: go straight to the stream.
 * (A sender can lie; then the attempt costs that megabyte and the stream still bounds the output.)
 */
function declaresLargeOutput(body: Buffer, stage: Coding): boolean {
  return stage === 'gzip' && body.length >= 18 && body.readUInt32LE(body.length - 4) > SYNC_MAX_BYTES;
}

/** A stage as decoded: `zlib` is deflate known to be zlib-wrapped (the legacy store body). */
type Stage = Coding | 'zlib';

const SYNC_MAX_INPUT = 256 * 1024;
const SYNC_MAX_BYTES = 1024 * 1024;
/** Output chunks of the streams: larger than zlib's 16 KB default, fewer thread-pool round trips. */
const CHUNK_BYTES = 64 * 1024;
/** A peek wants a few hundred bytes: zlib's default chunk, so that many concurrent peeks stay small. */
const PEEK_CHUNK_BYTES = 16 * 1024;

type OneShotSync = (input: Buffer, options: { maxOutputLength: number }) => Buffer;
const SYNC: Record<Exclude<Stage, 'deflate'> | 'raw', OneShotSync> = {
  gzip: zlib.gunzipSync, zlib: zlib.inflateSync, raw: zlib.inflateRawSync, br: zlib.brotliDecompressSync, zstd: zlib.zstdDecompressSync,
};

/**
 * One stage decoded synchronously into at most min(maxBytes, SYNC_MAX_BYTES); undefined when the output is
 * larger than SYNC_MAX_BYTES but may fit maxBytes (the streaming chain takes over).
 * HTTP "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2) but some clients send raw deflate. A zlib
 * stream starts with CMF/FLG: compression method 8, window ≤ 32 KiB, and CMF·256+FLG divisible by 31
 * (RFC 1950 §2.2). A raw stream can start with such bytes by chance, so a failed zlib attempt falls back to raw.
 */
function decodeSync(input: Buffer, stage: Stage, maxBytes: number, tooLarge: TooLargeCode): Buffer | undefined {
  const options = { maxOutputLength: Math.max(1, Math.min(maxBytes, SYNC_MAX_BYTES)) };
  const attempt = (fn: OneShotSync): Buffer | undefined => {
    try {
      return fn(input, options);
    } catch (err) {
      if (codeOf(err) !== 'ERR_BUFFER_TOO_LARGE') throw invalidCompression(err);
      if (maxBytes <= SYNC_MAX_BYTES) throw tooLargeError(tooLarge, maxBytes);
      return undefined;
    }
  };
  if (stage !== 'deflate') return attempt(SYNC[stage]);
  if (!looksZlibWrapped(input)) return attempt(SYNC.raw);
  try {
    return attempt(SYNC.zlib);
  } catch (e) {
    if (isSvcError(e) && e.code === 'invalid_compression') return attempt(SYNC.raw);
    throw e;
  }
}

interface ChainOptions {
  limit: number;
  tooLarge?: TooLargeCode;
  lease?: BudgetLease | undefined;
  /** Stop at the first newline of the output (or at `limit`), without refusing. */
  untilNewline?: boolean;
}

/**
 * The stages (in the order they are undone) as one pipeline of streams from `input`, collecting the output.
 * A deflate stage is zlib-wrapped when its input says so (the first stage) or by the RFC (later stages); when
 * the chain fails as invalid_compression with such a guess, it runs again with raw deflate.
 */
async function decodeChain(input: Buffer, stages: readonly Stage[], options: ChainOptions, rawDeflate = false): Promise<Buffer> {
  let guessedZlib = false;
  const streams = stages.map((stage, i): Transform => {
    const chunkSize = options.untilNewline ? PEEK_CHUNK_BYTES : CHUNK_BYTES;
    if (stage !== 'deflate') return createStream(stage, chunkSize);
    const zlibWrapped = !rawDeflate && (i > 0 || looksZlibWrapped(input));
    guessedZlib ||= zlibWrapped;
    return createStream(zlibWrapped ? 'zlib' : 'raw', chunkSize);
  });
  try {
    return await collect(input, streams, options);
  } catch (e) {
    if (guessedZlib && isSvcError(e) && e.code === 'invalid_compression') return decodeChain(input, stages, options, true);
    throw e;
  }
}

function createStream(stage: Exclude<Stage, 'deflate'> | 'raw', chunkSize: number): Transform {
  const opts = { chunkSize };
  switch (stage) {
    case 'gzip':
      return zlib.createGunzip(opts);
    case 'zlib':
      return zlib.createInflate(opts);
    case 'raw':
      return zlib.createInflateRaw(opts);
    case 'br':
      return zlib.createBrotliDecompress(opts);
    case 'zstd':
      return zlib.createZstdDecompress(opts);
  }
}

/**
 * Runs the chain into one buffer of `limit` bytes. The whole limit is taken from the lease before anything is
 * allocated: a decode that starts can finish (many concurrent ones never starve each other by each taking a
 * part), and one that cannot start is refused before it costs memory. The buffer is allocated uninitialised, so
 * only the pages written become resident; what the output does not use goes back to the lease at the end.
 */
async function collect(input: Buffer, streams: Transform[], options: ChainOptions): Promise<Buffer> {
  options.lease?.add(options.limit);
  const out = Buffer.allocUnsafe(options.limit);
  let total = 0;
  let stopped = false;
  const sink = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      const room = options.limit - total;
      if (chunk.length > room && !options.untilNewline) throw tooLargeError(options.tooLarge ?? 'envelope_too_large', options.limit);
      const n = Math.min(chunk.length, room);
      chunk.copy(out, total, 0, n);
      total += n;
      if (options.untilNewline && (total >= options.limit || chunk.subarray(0, n).includes(0x0a))) {
        stopped = true;
        return;
      }
    }
  };
  try {
    await runPipeline(Readable.from([input]), ...streams, sink);
  } catch (err) {
    // Leaving the sink early aborts the streams before it: that is the peek's success.
    if (!stopped) {
      options.lease?.drop(options.limit);
      throw isSvcError(err) ? err : invalidCompression(err);
    }
  }
  options.lease?.drop(options.limit - total);
  return out.subarray(0, total);
}

/** pipeline's typings have no overload for a spread of transforms; the call itself takes any number. */
const runPipeline = pipeline as (...stages: Array<NodeJS.ReadableStream | NodeJS.ReadWriteStream | ((source: AsyncIterable<Buffer>) => Promise<void>)>) => Promise<void>;

function codeOf(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}

function invalidCompression(err: unknown) {
  return svcError('invalid_compression', undefined, { reason: String(codeOf(err) ?? (err as Error).message).slice(0, 80) });
}

function tooLargeError(code: TooLargeCode, maxBytes: number) {
  return svcError(code, undefined, { limit_bytes: maxBytes });
}

function skipWhitespace(b: Buffer, i: number): number {
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0a || b[i] === 0x0d)) i++;
  return i;
}
