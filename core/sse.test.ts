import { describe, expect, it } from 'vitest';
import { SseParser, parseSseStream, writeSse, writeSseComment } from './sse.ts';

const parseAll = (chunks: (string | Uint8Array)[], opts?: { dispatchIncompleteAtEnd?: boolean }) => {
  const p = new SseParser(opts);
  const out = chunks.flatMap((c) => p.feed(c));
  return [...out, ...p.end()];
};

describe('SseParser', () => {
  it('parses LF, CRLF and CR line endings alike', () => {
    const lf = parseAll(['event: a\ndata: 1\n\n']);
    const crlf = parseAll(['event: a\r\ndata: 1\r\n\r\n']);
    const cr = parseAll(['event: a\rdata: 1\r\r']);
    expect(lf).toEqual([{ event: 'a', data: '1' }]);
    expect(crlf).toEqual(lf);
    expect(cr).toEqual(lf);
  });

  it('handles a CRLF split across chunks without inventing a blank line', () => {
    const out = parseAll(['data: a\r', '\ndata: b\r', '\n\r', '\n']);
    expect(out).toEqual([{ data: 'a\nb' }]);
  });

  it('handles every byte arriving alone', () => {
    const text = 'event: x\r\ndata: {"a":1}\r\n\r\ndata: two\n\n';
    expect(parseAll(text.split(''))).toEqual([{ event: 'x', data: '{"a":1}' }, { data: 'two' }]);
  });

  it('joins multi-line data with LF and strips only one leading space', () => {
    expect(parseAll(['data:a\ndata:  b\ndata\n\n'])).toEqual([{ data: 'a\n b\n' }]);
  });

  it('ignores comments and unknown fields, keeps retry', () => {
    const p = new SseParser();
    const out = p.feed(': keep-alive\nfoo: bar\nretry: 1500\ndata: x\n\n');
    expect(out).toEqual([{ data: 'x' }]);
    expect(p.retry).toBe(1500);
  });

  it('resets the event type after dispatch and skips events without data', () => {
    expect(parseAll(['event: ping\n\nevent: a\ndata: 1\n\ndata: 2\n\n'])).toEqual([
      { event: 'a', data: '1' },
      { data: '2' },
    ]);
  });

  it('carries the last event id forward and refuses ids with NUL', () => {
    expect(parseAll(['id: 7\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\n'])).toEqual([
      { id: '7', data: 'a' },
      { id: '7', data: 'b' },
      { id: '7', data: 'c' },
    ]);
  });

  it('decodes UTF-8 split inside a character and strips a leading BOM', () => {
    const bytes = new TextEncoder().encode('\uFEFFdata: h\u00e9llo \u{1F600}\n\n');
    const chunks = Array.from(bytes, (b) => Uint8Array.of(b));
    expect(parseAll(chunks)).toEqual([{ data: 'h\u00e9llo \u{1F600}' }]);
  });

  it('discards an unterminated event at the end unless asked to dispatch it', () => {
    expect(parseAll(['data: a\n\ndata: b'])).toEqual([{ data: 'a' }]);
    expect(parseAll(['data: a\n\ndata: b'], { dispatchIncompleteAtEnd: true })).toEqual([{ data: 'a' }, { data: 'b' }]);
  });

  it('parses an async byte stream', async () => {
    async function* body() {
      yield Buffer.from('data: [DO');
      yield Buffer.from('NE]\n\n');
    }
    const out = [];
    for await (const ev of parseSseStream(body())) out.push(ev);
    expect(out).toEqual([{ data: '[DONE]' }]);
  });
});

describe('writeSse', () => {
  it('writes event, id and data lines ending with a blank line', () => {
    expect(writeSse({ event: 'message_stop', data: '{"type":"message_stop"}' })).toBe(
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
    expect(writeSse({ data: '[DONE]', id: '3', retry: 10 })).toBe('id: 3\nretry: 10\ndata: [DONE]\n\n');
  });

  it('splits multi-line data into several data lines that parse back', () => {
    const text = writeSse({ data: 'a\r\nb\nc' });
    expect(text).toBe('data: a\ndata: b\ndata: c\n\n');
    expect(parseAll([text])).toEqual([{ data: 'a\nb\nc' }]);
  });

  it('rejects line breaks in event and id', () => {
    expect(() => writeSse({ event: 'a\nb', data: 'x' })).toThrow(TypeError);
    expect(() => writeSse({ id: 'a\rb', data: 'x' })).toThrow(TypeError);
  });

  it('writes comments', () => {
    expect(writeSseComment('ping')).toBe(': ping\n\n');
    expect(parseAll([writeSseComment('ping')])).toEqual([]);
  });
});
