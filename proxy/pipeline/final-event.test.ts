import { describe, expect, it } from 'vitest';
import { finalFrameStart, isFinalEvent } from './final-event.ts';

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

  it('answers 0 (hold the whole chunk) when the frame is not found as it was parsed', () => {
    // The frame started in an earlier chunk.
    expect(finalFrameStart(Buffer.from('NE]\n\n'), { data: '[DONE]' })).toBe(0);
    // The data line comes before the event line: parsing from `event:` would give other data.
    expect(finalFrameStart(Buffer.from('data: {"a":1}\n\ndata: {}\nevent: message_stop\n\n'), { event: 'message_stop', data: '{}' })).toBe(0);
  });
});
