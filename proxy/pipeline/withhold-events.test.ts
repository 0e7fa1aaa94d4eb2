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

  it('gives up (so the caller re-frames) when a withheld frame is not written verbatim', () => {
    expect(cutEvents(Buffer.from('data:{"usage":{}}\n\n'), [{ data: '{"usage":{}}' }])).toBeUndefined();
    expect(cutEvents(Buffer.from('event: u\ndata: x\n\n'), [{ event: 'u', data: 'x' }])).toBeUndefined();
  });
});
