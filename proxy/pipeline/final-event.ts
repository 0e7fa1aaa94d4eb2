/**
 * The event that ends a stream in each style, held back until the call's usage record is durable (issue 11 point
 * 2) while every earlier event goes out as it comes: chat `data: [DONE]`, messages `message_stop`, responses
 * `response.completed` / `response.failed` / `response.incomplete`, generative-language the chunk with a
 * `finishReason` (it has no end event; its last chunk carries the reason and the usage). An error event ends a
 * stream too. The end of the HTTP answer is always held as well (pipe-stream.ts), so a stream without any of
 * these is covered.
 */
import { SseParser, type SseEvent } from '../../core/sse.ts';
import type { StyleName } from '../../translators/model.ts';

const ERROR_START = /^\s*\{\s*"error"/;
const RESPONSES_END = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

export function isFinalEvent(style: StyleName, ev: { event?: string; data: string }): boolean {
  switch (style) {
    case 'chat':
      return ev.data === '[DONE]' || ev.event === 'error' || ERROR_START.test(ev.data);
    case 'messages':
      return ev.event === 'message_stop' || ev.event === 'error';
    case 'responses':
      return ev.event !== undefined && RESPONSES_END.has(ev.event);
    case 'generative':
      // Searched from the end, where the member sits; a quoted key inside text is escaped and cannot match.
      return ev.data.lastIndexOf('"finishReason"') >= 0 || ERROR_START.test(ev.data);
  }
}

/**
 * Where the frame of `ev` starts in `bytes` (SSE as the upstream wrote it), or 0 when it cannot be told: then the
 * whole of `bytes` waits, which only delays the events that came in the same read as the final one. A candidate
 * found by its first line is checked by parsing from there.
 */
export function finalFrameStart(bytes: Buffer, ev: SseEvent): number {
  const first = ev.event !== undefined ? [`event: ${ev.event}`, `event:${ev.event}`] : [`data: ${ev.data.split('\n', 1)[0]}`, `data:${ev.data.split('\n', 1)[0]}`];
  for (const line of first) {
    const at = bytes.lastIndexOf(line);
    if (at < 0 || (at > 0 && bytes[at - 1] !== 10 && bytes[at - 1] !== 13)) continue;
    const parser = new SseParser({ dispatchIncompleteAtEnd: true });
    const parsed = parser.feed(bytes.subarray(at))[0] ?? parser.end()[0];
    if (parsed !== undefined && parsed.event === ev.event && parsed.data === ev.data) return at;
  }
  return 0;
}
