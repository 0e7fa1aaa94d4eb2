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

/**
 * Whether a data text is an error object (its first member is `"error"`). Ordinary chunks start `{"` and are told
 * apart by their next characters, without the regular expression (this runs on every chunk of chat and
 * generative-language streams); only other openings (spaces) go through it.
 */
export function opensWithError(data: string): boolean {
  if (data.charCodeAt(0) === 123 /* { */ && data.charCodeAt(1) === 34 /* " */) return data.startsWith('"error"', 1);
  return ERROR_START.test(data);
}

const RESPONSES_END = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

export function isFinalEvent(style: StyleName, ev: { event?: string; data: string }): boolean {
  switch (style) {
    case 'chat':
      return ev.data === '[DONE]' || ev.event === 'error' || opensWithError(ev.data);
    case 'messages':
      return ev.event === 'message_stop' || ev.event === 'error';
    case 'responses':
      return ev.event !== undefined && RESPONSES_END.has(ev.event);
    case 'generative':
      // Searched from the end, where the member sits; a quoted key inside text is escaped and cannot match.
      return ev.data.lastIndexOf('"finishReason"') >= 0 || opensWithError(ev.data);
  }
}

/**
 * Where the frame of `ev` starts in `bytes` (SSE as the upstream wrote it), or 0 when it cannot be told: then the
 * whole of `bytes` waits, which only delays the events that came in the same read as the final one. A candidate
 * found by its first line is taken when the frame follows it as servers usually write it (one data line, LF line
 * ends, the blank line); any other candidate is checked by parsing from there (a parser per stream cost more than
 * the rest of this search).
 */
export function finalFrameStart(bytes: Buffer, ev: SseEvent): number {
  const oneLine = !ev.data.includes('\n') && !ev.data.includes('\r');
  const firstData = oneLine ? ev.data : ev.data.split('\n', 1)[0];
  const first = ev.event !== undefined ? [`event: ${ev.event}`, `event:${ev.event}`] : [`data: ${firstData}`, `data:${firstData}`];
  for (const line of first) {
    const at = bytes.lastIndexOf(line);
    if (at < 0 || (at > 0 && bytes[at - 1] !== 10 && bytes[at - 1] !== 13)) continue;
    if (oneLine) {
      const space = line.charCodeAt(line.indexOf(':') + 1) === 32 ? ' ' : '';
      const frame = ev.event !== undefined ? `${line}\ndata:${space}${ev.data}\n\n` : `${line}\n\n`;
      if (bytes.indexOf(frame, at) === at) return at;
    }
    const parser = new SseParser({ dispatchIncompleteAtEnd: true });
    const parsed = parser.feed(bytes.subarray(at))[0] ?? parser.end()[0];
    if (parsed !== undefined && parsed.event === ev.event && parsed.data === ev.data) return at;
  }
  return 0;
}
