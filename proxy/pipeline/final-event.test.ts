import { describe, expect, it } from 'vitest';
import { finalFrameStart, isFinalEvent, opensWithError } from './final-event.ts';

describe('the final event of a stream', () => {
  it.each([
    ['chat', { data: '[DONE]' }, true],
    ['chat', { data: '{"choices":[{"delta":{},"finish_reason":"stop"}]}' }, false],
    ['chat', { data: '{"error":{"message":"x"}}' }, true],
    ['messages', { event: 'message_delta', data: '{}' }, false],
    ['messages', { event: 'message_stop', data: '{"type":"message_stop"}' }, true],
    ['messages', { event: 'error', data: '{}' }, true],
    ['responses', { event: 'response.output_text.done', data: '{}' }, false],
    ['responses', { event: 'response.completed', data: '{}' }, true],
    ['responses', { event: 'response.incomplete', data: '{}' }, true],
    ['generative', { data: '{"candidates":[{"content":{"parts":[{"text":"say \\"finishReason\\""}]}}]}' }, false],
    ['generative', { data: '{"candidates":[{"finishReason":"STOP"}],"usageMetadata":{}}' }, true],
  ] as const)('%s %j → %s', (style, ev, final) => expect(isFinalEvent(style, ev)).toBe(final));

  it('finds where the final frame starts in the bytes, as written with or without a space', () => {
    const before = 'data: {"a":1}\n\ndata: {"b":2}\n\n';
    expect(finalFrameStart(Buffer.from(`${before}data: [DONE]\n\n`), { data: '[DONE]' })).toBe(before.length);
    const msg = 'event: message_delta\ndata: {}\r\n\r\n';
    expect(finalFrameStart(Buffer.from(`${msg}event:message_stop\r\ndata:{"type":"message_stop"}\r\n\r\n`), { event: 'message_stop', data: '{"type":"message_stop"}' })).toBe(msg.length);
  });

  it('finds a frame written as servers usually write it, and one written otherwise, at the same place', () => {
    const before = 'event: message_delta\ndata: {}\n\n';
    const stop = { event: 'message_stop', data: '{"type":"message_stop"}' };
    expect(finalFrameStart(Buffer.from(`${before}event: message_stop\ndata: {"type":"message_stop"}\n\n`), stop)).toBe(before.length);
    // Not the usual shape (an id line between): checked by parsing.
    expect(finalFrameStart(Buffer.from(`${before}event: message_stop\nid: 7\ndata: {"type":"message_stop"}\n\n`), stop)).toBe(before.length);
    // The last event without its blank line (the stream closed after it).
    expect(finalFrameStart(Buffer.from('data: {"a":1}\n\ndata: [DONE]\n'), { data: '[DONE]' })).toBe(15);
    // A data line that continues on the next line is another event's data: not this frame.
    expect(finalFrameStart(Buffer.from('data: {"a":1}\n\ndata: [DONE]\ndata: more\n\n'), { data: '[DONE]' })).toBe(0);
    // Text after the first line's data: the line is longer, not this frame.
    expect(finalFrameStart(Buffer.from('data: {"a":1}\n\ndata: [DONE]x\n\n'), { data: '[DONE]' })).toBe(0);
    // Multi-byte text before and in the frame: positions are byte offsets.
    const head = 'data: {"t":"é€"}\n\n';
    expect(finalFrameStart(Buffer.from(`${head}data: {"error":"ü"}\n\n`), { data: '{"error":"ü"}' })).toBe(Buffer.byteLength(head));
  });

  it('tells error objects as the regular expression /^\\s*\\{\\s*"error"/ does', () => {
    const re = /^\s*\{\s*"error"/;
    for (const d of ['{"error":{}}', '{"errors":1}', '{"err":1}', '{"id":"x"}', ' {"error":1}', '{ "error":1}', '{"', '{', '', '[DONE]', '{"error"', '\n{"error":1}', '{"\u0065rror":1}']) {
      expect(opensWithError(d), d).toBe(re.test(d));
    }
  });

  it('answers 0 (hold the whole chunk) when the frame is not found as it was parsed', () => {
    // The frame started in an earlier chunk.
    expect(finalFrameStart(Buffer.from('NE]\n\n'), { data: '[DONE]' })).toBe(0);
    // The data line comes before the event line: parsing from `event:` would give other data.
    expect(finalFrameStart(Buffer.from('data: {"a":1}\n\ndata: {}\nevent: message_stop\n\n'), { event: 'message_stop', data: '{}' })).toBe(0);
  });
});
