/**
 * Fuzz-style test of the untrusted-input path: decompression then envelope parsing. Thousands of mutated
 * envelopes (byte flips, insertions, deletions, truncations, changed lengths, re-compressed or not) must each
 * either parse or throw a SvcError with a 4xx status: never another exception, never a hang.
 * The generator is seeded, so a failure is reproducible from the printed seed and index.
 */
import { describe, expect, it } from 'vitest';
import zlib from 'node:zlib';
import { isSvcError } from '../../core/errors.ts';
import { decompressBody } from './decompress-body.ts';
import { parseEnvelope } from './parse-envelope.ts';

/** mulberry32: a tiny seeded PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const event = JSON.stringify({ event_id: '9ec79c33ec9942ab8353589fcb2e04dc', message: 'héllo', exception: { values: [{ type: 'Error', value: 'x' }] } });
const SEEDS: string[] = [
  `{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","sent_at":"2024-05-06T07:08:09Z"}\n{"type":"event","length":${Buffer.byteLength(event)}}\n${event}\n`,
  `{}\n{"type":"event"}\n${event}\n{"type":"attachment","length":5}\nab\ncd\n{"type":"session"}\n{"sid":"1"}`,
  '{"dsn":"https://pk@example.com/1"}\n{"type":"attachment","length":0}\n\n{"type":"client_report"}\n{"discarded_events":[]}\n',
  '{}\n',
  `{"trace":{"trace_id":"${'a'.repeat(32)}"}}\n{"type":"transaction","length":2}\n{}\n{"type":"unknown_kind"}\n\r\n`,
];

const TOKENS = ['\n', '\r', '{', '}', '"', ':', ',', '"length":', '"type":', '9999999', '-1', '"event"', '\u0000', '\ufffd', '[', ']'];

function mutate(input: Buffer, r: () => number): Buffer {
  let bytes = Array.from(input);
  const rounds = 1 + Math.floor(r() * 4);
  for (let k = 0; k < rounds; k++) {
    const pos = Math.floor(r() * (bytes.length + 1));
    const op = Math.floor(r() * 6);
    if (op === 0 && bytes.length > 0) bytes[pos % bytes.length] ^= 1 << Math.floor(r() * 8);
    else if (op === 1) bytes = bytes.slice(0, pos);
    else if (op === 2) bytes.splice(pos, 1 + Math.floor(r() * 8));
    else if (op === 3) bytes.splice(pos, 0, ...Buffer.from(TOKENS[Math.floor(r() * TOKENS.length)]));
    else if (op === 4) bytes.splice(pos, 0, Math.floor(r() * 256));
    else {
      // Change a declared length to a nearby or absurd value.
      const text = Buffer.from(bytes).toString('latin1');
      const replaced = text.replace(/"length":(\d+)/, (_m, n: string) => `"length":${[Number(n) + 1, Number(n) - 1, 0, 2 ** 31, Math.floor(r() * 500)][Math.floor(r() * 5)]}`);
      bytes = Array.from(Buffer.from(replaced, 'latin1'));
    }
  }
  return Buffer.from(bytes);
}

const ENCODINGS = [undefined, 'gzip', 'deflate', 'br', 'zstd'] as const;

function compress(body: Buffer, encoding: (typeof ENCODINGS)[number]): Buffer {
  switch (encoding) {
    case 'gzip': return zlib.gzipSync(body);
    case 'deflate': return zlib.deflateSync(body);
    case 'br': return zlib.brotliCompressSync(body);
    case 'zstd': return zlib.zstdCompressSync(body);
    default: return body;
  }
}

async function run(body: Buffer, encoding: string | undefined): Promise<'parsed' | number> {
  try {
    parseEnvelope(await decompressBody(body, encoding, 64 * 1024), { maxEventBytes: 4096 });
    return 'parsed';
  } catch (e) {
    if (isSvcError(e)) return e.status;
    throw e;
  }
}

describe('envelope parsing and decompression under mutation', () => {
  it('either parses or refuses with a 4xx SvcError, for thousands of mutated inputs', async () => {
    const seed = 20261122;
    const r = rng(seed);
    const tally = { parsed: 0, refused: 0 };
    const started = performance.now();
    for (let i = 0; i < 4000; i++) {
      const base = Buffer.from(SEEDS[i % SEEDS.length]);
      const encoding = ENCODINGS[Math.floor(r() * ENCODINGS.length)];
      // Mutate before compressing (the parser sees the damage) or after (the decompressor does).
      const body = r() < 0.5 ? compress(mutate(base, r), encoding) : mutate(compress(base, encoding), r);
      let outcome: 'parsed' | number;
      try {
        outcome = await run(body, encoding);
      } catch (e) {
        throw new Error(`seed ${seed} input ${i} (${encoding ?? 'identity'}) threw a non-SvcError: ${String(e)}`);
      }
      if (outcome === 'parsed') tally.parsed++;
      else {
        expect(outcome, `seed ${seed} input ${i}`).toBeGreaterThanOrEqual(400);
        expect(outcome, `seed ${seed} input ${i}`).toBeLessThan(500);
        tally.refused++;
      }
    }
    // Both branches are exercised, and the whole run is fast (no pathological input hangs).
    expect(tally.parsed).toBeGreaterThan(200);
    expect(tally.refused).toBeGreaterThan(200);
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('never throws anything but a 4xx SvcError on random bytes', async () => {
    const r = rng(7);
    for (let i = 0; i < 1500; i++) {
      const body = Buffer.from(Array.from({ length: Math.floor(r() * 200) }, () => Math.floor(r() * 256)));
      const encoding = ENCODINGS[i % ENCODINGS.length];
      const outcome = await run(body, encoding);
      if (outcome !== 'parsed') expect(outcome).toBeGreaterThanOrEqual(400);
      if (outcome !== 'parsed') expect(outcome).toBeLessThan(500);
    }
  });
});
