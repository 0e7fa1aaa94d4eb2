import { describe, expect, it } from 'vitest';
import zlib from 'node:zlib';
import { isSvcError } from '../../core/errors.ts';
import { decodeLegacyStoreBody, decompressBody, looksZlibWrapped, parseContentEncoding, PEEK_MAX_BYTES, peekFirstLine } from './decompress-body.ts';
import { InflateBudget } from './inflate-budget.ts';

const MB = 1024 * 1024;
const text = Buffer.from('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","message":"hello"}\n'.repeat(50));

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isSvcError(e)) return `${e.status} ${e.code}`;
    throw e;
  }
  return 'resolved';
}

/** A zstd frame of RLE blocks: 4 bytes per 128 KiB of zeros (RFC 8878 §3.1.1.2). */
function zstdRleBomb(totalBytes: number): Buffer {
  const block = 128 * 1024;
  const n = Math.ceil(totalBytes / block);
  const out = Buffer.alloc(6 + n * 4);
  out.writeUInt32LE(0xfd2fb528, 0);
  out[4] = 0x00; // descriptor: no content size, not single-segment, no checksum, no dictionary
  out[5] = 7 << 3; // window 2^17 = 128 KiB
  for (let i = 0; i < n; i++) {
    const last = i === n - 1 ? 1 : 0;
    const header = (block << 3) | (1 << 1) | last; // Block_Type 1 = RLE
    out.writeUIntLE(header, 6 + i * 4, 3);
    out[6 + i * 4 + 3] = 0;
  }
  return out;
}

describe('parseContentEncoding', () => {
  it('reads the codings, ignoring identity, case and blanks', () => {
    expect(parseContentEncoding(undefined)).toEqual([]);
    expect(parseContentEncoding('')).toEqual([]);
    expect(parseContentEncoding('identity')).toEqual([]);
    expect(parseContentEncoding(' GZIP , br,,identity, x-gzip ')).toEqual(['gzip', 'br', 'gzip']);
    expect(parseContentEncoding('zstd')).toEqual(['zstd']);
  });

  it('refuses unknown codings with 415', () => {
    for (const bad of ['compress', 'lz4', 'gzip, snappy', '__proto__', 'toString']) {
      expect(() => parseContentEncoding(bad)).toThrow(expect.objectContaining({ code: 'unsupported_content_encoding', status: 415 }));
    }
  });

  it('refuses absurd stacks of codings', () => {
    expect(() => parseContentEncoding('gzip,gzip,gzip,gzip,gzip')).toThrow(expect.objectContaining({ code: 'unsupported_content_encoding' }));
  });
});

describe('decompressBody', () => {
  it('passes identity bodies through', async () => {
    expect(await decompressBody(text, undefined, MB)).toBe(text);
    expect(await decompressBody(text, 'identity', MB)).toBe(text);
  });

  it.each([
    ['gzip', zlib.gzipSync(text)],
    ['x-gzip', zlib.gzipSync(text)],
    ['deflate', zlib.deflateSync(text)],
    ['deflate', zlib.deflateRawSync(text)],
    ['br', zlib.brotliCompressSync(text)],
    ['zstd', zlib.zstdCompressSync(text)],
    ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(text))],
    ['deflate, gzip', zlib.gzipSync(zlib.deflateRawSync(text))],
  ])('decodes %s', async (encoding, body) => {
    expect((await decompressBody(body, encoding, MB)).equals(text)).toBe(true);
  });

  it('decodes raw deflate whose first bytes happen to look like a zlib header', async () => {
    // A non-final stored block whose ignored padding bits are set: 0x78 0x01 is also a valid zlib header.
    const raw = Buffer.from([0x78, 0x01, 0x00, 0xfe, 0xff, 0x41, 0x01, 0x00, 0x00, 0xff, 0xff]);
    expect(looksZlibWrapped(raw)).toBe(true);
    expect(zlib.inflateRawSync(raw).toString()).toBe('A');
    expect((await decompressBody(raw, 'deflate', MB)).toString()).toBe('A');
  });

  it('refuses bodies that are not what their coding claims with 400 invalid_compression', async () => {
    expect(await codeOf(decompressBody(text, 'gzip', MB))).toBe('400 invalid_compression');
    expect(await codeOf(decompressBody(text, 'deflate', MB))).toBe('400 invalid_compression');
    expect(await codeOf(decompressBody(text, 'br', MB))).toBe('400 invalid_compression');
    expect(await codeOf(decompressBody(text, 'zstd', MB))).toBe('400 invalid_compression');
    expect(await codeOf(decompressBody(zlib.gzipSync(text), 'zstd', MB))).toBe('400 invalid_compression');
  });

  it('refuses truncated streams', async () => {
    const gz = zlib.gzipSync(text);
    expect(await codeOf(decompressBody(gz.subarray(0, gz.length - 10), 'gzip', MB))).toBe('400 invalid_compression');
    expect(await codeOf(decompressBody(Buffer.alloc(0), 'gzip', MB))).toBe('400 invalid_compression');
    const zs = zlib.zstdCompressSync(text);
    expect(await codeOf(decompressBody(zs.subarray(0, zs.length - 3), 'zstd', MB))).toBe('400 invalid_compression');
  });

  it('refuses an identity body past the limit', async () => {
    expect(await codeOf(decompressBody(Buffer.alloc(101), undefined, 100))).toBe('413 envelope_too_large');
    expect(await codeOf(decompressBody(Buffer.alloc(101), undefined, 100, 'event_too_large'))).toBe('413 event_too_large');
  });

  it('stops a gzip bomb at the limit', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(50 * MB));
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(await codeOf(decompressBody(bomb, 'gzip', MB))).toBe('413 envelope_too_large');
  });

  it('stops a 1 GiB nested gzip bomb of a few KB without allocating it', async () => {
    // gzip of 1 MiB of zeros, as 1024 concatenated members (1 GiB), gzipped again: about 10 KB on the wire.
    const member = zlib.gzipSync(Buffer.alloc(MB), { level: 9 });
    const inner = Buffer.concat(Array.from({ length: 1024 }, () => member));
    const bomb = zlib.gzipSync(inner, { level: 9 });
    expect(bomb.length).toBeLessThan(64 * 1024);
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    expect(await codeOf(decompressBody(bomb, 'gzip, gzip', 20 * MB))).toBe('413 envelope_too_large');
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * MB);
  });

  it('stops a 1 GiB zstd bomb of 32 KB without allocating it', async () => {
    const bomb = zstdRleBomb(1024 * MB);
    expect(bomb.length).toBeLessThan(40 * 1024);
    // The crafted frame is valid: a small one decodes to exactly its zeros.
    expect((await decompressBody(zstdRleBomb(256 * 1024), 'zstd', MB)).equals(Buffer.alloc(256 * 1024))).toBe(true);
    const before = process.memoryUsage().rss;
    expect(await codeOf(decompressBody(bomb, 'zstd', 20 * MB))).toBe('413 envelope_too_large');
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * MB);
  });

  it('allows output exactly at the limit', async () => {
    const exact = Buffer.alloc(MB, 0x61);
    expect((await decompressBody(zlib.gzipSync(exact), 'gzip', MB)).length).toBe(MB);
    expect(await codeOf(decompressBody(zlib.gzipSync(Buffer.alloc(MB + 1)), 'gzip', MB))).toBe('413 envelope_too_large');
  });
});

describe('decodeLegacyStoreBody', () => {
  const json = Buffer.from('{"message":"legacy","level":"error"}');

  it('passes plain JSON through', async () => {
    expect(await decodeLegacyStoreBody(json)).toBe(json);
    const padded = Buffer.from('  \n{"a":1}');
    expect(await decodeLegacyStoreBody(padded)).toBe(padded);
  });

  it('decodes base64(zlib(JSON)), as old SDKs send it', async () => {
    const body = Buffer.from(zlib.deflateSync(json).toString('base64'));
    expect((await decodeLegacyStoreBody(body)).equals(json)).toBe(true);
  });

  it('decodes base64 with line breaks and the URL-safe alphabet', async () => {
    const b64 = zlib.deflateSync(Buffer.from(JSON.stringify({ m: 'x'.repeat(300), n: '???>>>' }))).toString('base64');
    const wrapped = Buffer.from(b64.replace(/(.{60})/g, '$1\n'));
    expect(JSON.parse((await decodeLegacyStoreBody(wrapped)).toString()).n).toBe('???>>>');
    const urlSafe = Buffer.from(zlib.deflateSync(Buffer.from('{"n":"???>>>"}')).toString('base64url'));
    expect(JSON.parse((await decodeLegacyStoreBody(urlSafe)).toString()).n).toBe('???>>>');
  });

  it('decodes base64 of plain JSON', async () => {
    expect((await decodeLegacyStoreBody(Buffer.from(json.toString('base64')))).equals(json)).toBe(true);
  });

  it('refuses what is neither JSON nor base64, and base64 of garbage', async () => {
    expect(await codeOf(decodeLegacyStoreBody(Buffer.from('[1,2,3]')))).toBe('400 invalid_event');
    expect(await codeOf(decodeLegacyStoreBody(Buffer.from('not json at all!')))).toBe('400 invalid_event');
    expect(await codeOf(decodeLegacyStoreBody(Buffer.from('aGVsbG8gd29ybGQ=')))).toBe('400 invalid_compression');
  });

  it('bounds the inflated size', async () => {
    const bomb = Buffer.from(zlib.deflateSync(Buffer.alloc(10 * MB, 0x20)).toString('base64'));
    expect(await codeOf(decodeLegacyStoreBody(bomb))).toBe('413 event_too_large');
    expect(await codeOf(decodeLegacyStoreBody(Buffer.from(`{"m":"${'x'.repeat(200)}"}`), 100))).toBe('413 event_too_large');
  });
});

describe('within a budget', () => {
  const header = Buffer.from('{"dsn":"http://k@h/1"}\n');
  const big = Buffer.concat([header, Buffer.alloc(19 * MB, 0x41)]);
  const bigGzip = zlib.gzipSync(big, { level: 9 });

  it('streams a large body into the limit and holds exactly its size in the lease', async () => {
    const budget = new InflateBudget(64 * MB);
    const lease = budget.lease();
    const out = await decompressBody(bigGzip, 'gzip', 20 * MB, 'envelope_too_large', lease);
    expect(out.equals(big)).toBe(true);
    expect(lease.held).toBe(big.length);
    expect(budget.used).toBe(big.length);
  });

  it('takes the whole limit before it starts: a decode that cannot have it is refused, the others are untouched', async () => {
    const budget = new InflateBudget(30 * MB);
    const first = budget.lease();
    await decompressBody(bigGzip, 'gzip', 20 * MB, 'envelope_too_large', first);
    const second = budget.lease();
    expect(await codeOf(decompressBody(bigGzip, 'gzip', 20 * MB, 'envelope_too_large', second))).toBe('503 ingest_overloaded');
    expect(second.held).toBe(0);
    expect(budget.used).toBe(big.length);
    first.release();
    expect((await decompressBody(bigGzip, 'gzip', 20 * MB, 'envelope_too_large', second)).length).toBe(big.length);
  });

  it('gives everything back when a bomb passes the limit', async () => {
    const budget = new InflateBudget(64 * MB);
    const lease = budget.lease();
    expect(await codeOf(decompressBody(zlib.gzipSync(Buffer.alloc(30 * MB)), 'gzip', 20 * MB, 'envelope_too_large', lease))).toBe('413 envelope_too_large');
    expect(budget.used).toBe(0);
  });

  it('counts a small body decoded at once', async () => {
    const budget = new InflateBudget(MB);
    const lease = budget.lease();
    expect((await decompressBody(zlib.gzipSync(text), 'gzip', MB, 'envelope_too_large', lease)).equals(text)).toBe(true);
    expect(lease.held).toBe(text.length);
  });
});

describe('peekFirstLine', () => {
  const header = Buffer.from('{"dsn":"http://k@h/1"}\n');
  const budget = new InflateBudget(MB);

  it('inflates a 19 MB envelope only as far as its first line, within 64 KB, and holds nothing afterwards', async () => {
    const lease = budget.lease();
    const body = zlib.gzipSync(Buffer.concat([header, Buffer.alloc(19 * MB, 0x41)]));
    const head = await peekFirstLine(body, 'gzip', lease);
    expect(head.subarray(0, head.indexOf(0x0a) + 1).equals(header)).toBe(true);
    expect(head.length).toBeLessThanOrEqual(PEEK_MAX_BYTES);
    expect(lease.held).toBe(0);
    for (const [encoding, compress] of [['br', zlib.brotliCompressSync], ['deflate', zlib.deflateRawSync], ['zstd', zlib.zstdCompressSync]] as const) {
      const line = await peekFirstLine(compress(Buffer.concat([header, Buffer.alloc(MB)])), encoding, lease);
      expect(line.subarray(0, header.length).equals(header), encoding).toBe(true);
    }
  });

  it('reads the first line of a plain body, and stops at 64 KB when the line is longer', async () => {
    expect((await peekFirstLine(Buffer.concat([header, Buffer.from('{}')]), undefined)).equals(header)).toBe(true);
    const long = await peekFirstLine(zlib.gzipSync(Buffer.alloc(MB, 0x20)), 'gzip');
    expect(long.length).toBe(PEEK_MAX_BYTES);
    expect(long.includes(0x0a)).toBe(false);
  });

  it('refuses corrupt compression before the first line', async () => {
    expect(await codeOf(peekFirstLine(Buffer.from('not gzip at all'), 'gzip'))).toBe('400 invalid_compression');
  });
});

describe('decodeLegacyStoreBody within bounds', () => {
  it('refuses base64 longer than any event could encode to, before decoding it', async () => {
    expect(await codeOf(decodeLegacyStoreBody(Buffer.alloc(2 * MB + 1, 0x41)))).toBe('413 event_too_large');
  });
});
