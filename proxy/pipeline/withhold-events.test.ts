import { describe, expect, it } from 'vitest';
import { SseParser } from '../../core/sse.ts';
import { cutEvents, EventWithholder } from './withhold-events.ts';

const STREAM = 'data: {"a":1}\n\ndata: {"choices":[],"usage":{"total_tokens":3}}\n\ndata: [DONE]\n\n';

/** Feeds `chunks` through a withholder and a parser, dropping usage events; returns what the client gets. */
function run(chunks: string[]): string {
  const w = new EventWithholder();
  const parser = new SseParser();
  let out = '';
  const step = (events: ReturnType<SseParser['feed']>, bytes: Buffer | undefined) => {
    const dropped = events.filter((e) => e.data.includes('"usage"'));
    if (bytes === undefined) return;
    out += dropped.length ? cutEvents(bytes, dropped)?.toString() : bytes.toString();
  };
  for (const c of chunks) {
    const b = Buffer.from(c);
    step(parser.feed(b), w.release(b));
  }
  step(parser.end(), w.rest());
  return out;
}

describe('withholding whole events of a passthrough stream', () => {
  it('cuts the usage event whatever the chunking, keeping every other byte', () => {
    const want = 'data: {"a":1}\n\ndata: [DONE]\n\n';
    expect(run([STREAM])).toBe(want);
    for (let i = 1; i < STREAM.length; i++) expect(run([STREAM.slice(0, i), STREAM.slice(i)])).toBe(want);
    expect(run(STREAM.split(''))).toBe(want);
  });

  it('releases bytes only at event boundaries, CRLF framing included', () => {
    const w = new EventWithholder();
    expect(w.release(Buffer.from('data: x\r\n'))).toBeUndefined();
    expect(w.release(Buffer.from('\r\ndata: y'))?.toString()).toBe('data: x\r\n\r\n');
    expect(w.rest()?.toString()).toBe('data: y');
  });

  it('releases what a whole concatenation would, however the bytes are split (LF, CRLF and CR framing)', () => {
    /** What the withholder released before this change: everything pending and the chunk, joined and searched. */
    const reference = (chunks: string[]) => {
      let pending = '';
      const out: string[] = [];
      for (const c of chunks) {
        const all = pending + c;
        const ends = ['\n\n', '\r\n\r\n', '\r\r'].map((b) => (all.lastIndexOf(b) >= 0 ? all.lastIndexOf(b) + b.length : -1));
        const end = Math.max(...ends);
        if (end < 0) pending = all;
        else {
          out.push(all.slice(0, end));
          pending = all.slice(end);
        }
      }
      return { out, rest: pending };
    };
    const actual = (chunks: string[]) => {
      const w = new EventWithholder();
      const out: string[] = [];
      for (const c of chunks) {
        const r = w.release(Buffer.from(c));
        if (r !== undefined) out.push(r.toString());
      }
      return { out, rest: w.rest()?.toString() ?? '' };
    };
    for (const text of ['data: a\r\n\r\ndata: b\r\n\r\ndata: c', 'data: a\r\rdata: b\n\ndata: c\r\n\r\n', 'data: a\r\n\rdata: b\n\r\n\r\n']) {
      expect(actual([text])).toEqual(reference([text]));
      expect(actual(text.split(''))).toEqual(reference(text.split('')));
      for (let i = 1; i < text.length; i++) {
        for (let j = i + 1; j < text.length; j++) {
          const parts = [text.slice(0, i), text.slice(i, j), text.slice(j)];
          expect(actual(parts), JSON.stringify(parts)).toEqual(reference(parts));
        }
      }
    }
  });

  it('keeps an event that spans many chunks without joining them on each one', () => {
    const w = new EventWithholder();
    const piece = Buffer.alloc(1000, 'x');
    expect(w.release(Buffer.from('data: '))).toBeUndefined();
    for (let i = 0; i < 2000; i++) expect(w.release(piece)).toBeUndefined();
    const out = w.release(Buffer.from('\n\ndata: next'));
    expect(out?.length).toBe(6 + 2_000_000 + 2);
    expect(w.rest()?.toString()).toBe('data: next');
  });

  it('gives up (so the caller re-frames) when a withheld frame is not written verbatim', () => {
    expect(cutEvents(Buffer.from('data:{"usage":{}}\n\n'), [{ data: '{"usage":{}}' }])).toBeUndefined();
    expect(cutEvents(Buffer.from('event: u\ndata: x\n\n'), [{ event: 'u', data: 'x' }])).toBeUndefined();
  });
});
