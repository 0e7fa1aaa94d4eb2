/**
 * Bounded decompression of ingest request bodies.
 *
 * `Content-Encoding` lists the codings in the order they were applied (RFC 9110 §8.4), so they are undone
 * right to left. Supported: identity, gzip (and x-gzip), deflate (zlib-wrapped or raw: both are sent in the
 * wild, so the zlib header is detected), br, zstd. Every stage stops as soon as its output passes
 * `maxBytes`, so a decompression bomb never allocates more than about `maxBytes` plus one zlib chunk.
 *
 * Refusals: a coding we do not know → unsupported_content_encoding (415); bytes that are not what their
 * coding claims (bad header, corrupt or truncated stream) → invalid_compression (400); too much output →
 * envelope_too_large (413) or the code the caller names (event_too_large for a /store/ body).
 */
import zlib from 'node:zlib';
import { isSvcError, svcError, type ErrorCode } from '../../core/errors.ts';
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

/**
 * Undo `contentEncoding` on `body`, producing at most `maxBytes` bytes.
 * @see https://www.rfc-editor.org/rfc/rfc9110#field.content-encoding
 */
export async function decompressBody(
  body: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
  tooLarge: TooLargeCode = 'envelope_too_large',
): Promise<Buffer> {
  const stages = parseContentEncoding(contentEncoding);
  let out = body;
  for (let i = stages.length - 1; i >= 0; i--) out = await decodeStage(out, stages[i], maxBytes, tooLarge);
  if (out.length > maxBytes) throw tooLargeError(tooLarge, maxBytes);
  return out;
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
 * A legacy `/store/` body: plain JSON (starts with `{`), or base64 of JSON, or base64 of zlib-compressed JSON,
 * sent without any Content-Encoding (as Relay's `decode_bytes` accepts). Returns the JSON bytes.
 * Not base64 → invalid_event (it is neither JSON nor an encoded event); base64 of something that is neither
 * JSON nor zlib → invalid_compression.
 */
export async function decodeLegacyStoreBody(buf: Buffer, maxBytes: number = EVENT_MAX_BYTES): Promise<Buffer> {
  const start = skipWhitespace(buf, 0);
  if (start === buf.length || buf[start] === 0x7b /* { */) {
    if (buf.length > maxBytes) throw tooLargeError('event_too_large', maxBytes);
    return buf;
  }
  const text = buf.toString('latin1').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw svcError('invalid_event', 'The store body is neither a JSON object nor base64.');
  const binary = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
  if (binary[skipWhitespace(binary, 0)] === 0x7b) {
    if (binary.length > maxBytes) throw tooLargeError('event_too_large', maxBytes);
    return binary;
  }
  return inflateBounded(binary, INFLATE, maxBytes, 'event_too_large');
}

async function decodeStage(input: Buffer, coding: Coding, maxBytes: number, tooLarge: TooLargeCode): Promise<Buffer> {
  switch (coding) {
    case 'gzip':
      return inflateBounded(input, GZIP, maxBytes, tooLarge);
    case 'br':
      return inflateBounded(input, BROTLI, maxBytes, tooLarge);
    case 'zstd':
      return inflateBounded(input, ZSTD, maxBytes, tooLarge);
    case 'deflate':
      return inflateDeflate(input, maxBytes, tooLarge);
  }
}

/**
 * HTTP "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2) but some clients send raw deflate. A zlib
 * stream starts with CMF/FLG: compression method 8, window ≤ 32 KiB, and CMF·256+FLG divisible by 31
 * (RFC 1950 §2.2). A raw stream can start with such bytes by chance, so a failed zlib attempt falls back to raw.
 */
async function inflateDeflate(input: Buffer, maxBytes: number, tooLarge: TooLargeCode): Promise<Buffer> {
  const raw = () => inflateBounded(input, INFLATE_RAW, maxBytes, tooLarge);
  if (!looksZlibWrapped(input)) return raw();
  try {
    return await inflateBounded(input, INFLATE, maxBytes, tooLarge);
  } catch (e) {
    if (isSvcError(e) && e.code === 'invalid_compression') return raw();
    throw e;
  }
}

export function looksZlibWrapped(b: Buffer): boolean {
  return b.length >= 2 && (b[0] & 0x0f) === 8 && b[0] >> 4 <= 7 && (b[0] * 256 + b[1]) % 31 === 0;
}

/**
 * Node's one-shot decompressors with `maxOutputLength`: they stop (ERR_BUFFER_TOO_LARGE) as soon as the output
 * passes the limit, so a bomb never allocates much more than the limit. A small body (the usual event) is first
 * inflated synchronously up to SYNC_MAX_BYTES: that costs a few microseconds where the thread-pool round trip
 * costs tens, and blocks the event loop for at most about a millisecond. Past that, the asynchronous call takes
 * over with the full limit.
 */
type OneShotSync = (input: Buffer, options: { maxOutputLength: number }) => Buffer;
type OneShot = (input: Buffer, options: { maxOutputLength: number }, callback: (err: Error | null, out: Buffer) => void) => void;
interface Codec {
  sync: OneShotSync;
  async: OneShot;
}

const SYNC_MAX_INPUT = 256 * 1024;
const SYNC_MAX_BYTES = 1024 * 1024;

const GZIP: Codec = { sync: zlib.gunzipSync, async: zlib.gunzip };
const INFLATE: Codec = { sync: zlib.inflateSync, async: zlib.inflate };
const INFLATE_RAW: Codec = { sync: zlib.inflateRawSync, async: zlib.inflateRaw };
const BROTLI: Codec = { sync: zlib.brotliDecompressSync, async: zlib.brotliDecompress };
const ZSTD: Codec = { sync: zlib.zstdDecompressSync, async: zlib.zstdDecompress };

async function inflateBounded(input: Buffer, codec: Codec, maxBytes: number, tooLarge: TooLargeCode): Promise<Buffer> {
  if (input.length <= SYNC_MAX_INPUT) {
    try {
      return codec.sync(input, { maxOutputLength: Math.max(1, Math.min(maxBytes, SYNC_MAX_BYTES)) });
    } catch (err) {
      if (codeOf(err) !== 'ERR_BUFFER_TOO_LARGE') throw invalidCompression(err);
      if (maxBytes <= SYNC_MAX_BYTES) throw tooLargeError(tooLarge, maxBytes);
    }
  }
  return new Promise((resolve, reject) => {
    codec.async(input, { maxOutputLength: Math.max(1, maxBytes) }, (err, out) => {
      if (!err) return resolve(out);
      reject(codeOf(err) === 'ERR_BUFFER_TOO_LARGE' ? tooLargeError(tooLarge, maxBytes) : invalidCompression(err));
    });
  });
}

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
