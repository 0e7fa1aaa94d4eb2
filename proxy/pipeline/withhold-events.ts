/**
 * Passing SSE bytes through while withholding whole events (the chat usage chunk the gateway asked for on the
 * client's behalf). Bytes are released up to the last event boundary of each chunk (a blank line: LF LF, CR LF CR LF
 * or CR CR) and the incomplete rest waits for the next chunk, so an event is never half written when it turns out to
 * be withheld. A withheld event is cut out of the released bytes where its frame is found verbatim
 * (`data: <data>` and a blank line, as chat servers write it); otherwise the released events are framed anew.
 */
import type { SseEvent } from '../../core/sse.ts';

const LF2 = Buffer.from('\n\n');
const CRLF2 = Buffer.from('\r\n\r\n');
const CR2 = Buffer.from('\r\r');

function lastBoundary(buf: Buffer): number {
  // Most chunks end on a boundary: nothing to search then.
  const n = buf.length;
  if (n >= 2 && buf[n - 1] === 10 && (buf[n - 2] === 10 || (n >= 4 && buf[n - 2] === 13 && buf[n - 3] === 10 && buf[n - 4] === 13))) return n;
  if (n >= 2 && buf[n - 1] === 13 && buf[n - 2] === 13) return n;
  let end = -1;
  const a = buf.lastIndexOf(LF2);
  if (a >= 0) end = a + 2;
  const b = buf.lastIndexOf(CRLF2);
  if (b >= 0 && b + 4 > end) end = b + 4;
  const c = buf.lastIndexOf(CR2);
  if (c >= 0 && c + 2 > end) end = c + 2;
  return end;
}

export class EventWithholder {
  #pending: Buffer | undefined;

  /** The bytes of `chunk` (after what is pending) that end on an event boundary; the rest is kept. */
  release(chunk: Buffer): Buffer | undefined {
    const buf = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    const end = lastBoundary(buf);
    if (end < 0) {
      this.#pending = buf;
      return undefined;
    }
    this.#pending = end < buf.length ? buf.subarray(end) : undefined;
    return end === buf.length ? buf : buf.subarray(0, end);
  }

  /** What is left when the stream ends (an event without its closing blank line). */
  rest(): Buffer | undefined {
    const p = this.#pending;
    this.#pending = undefined;
    return p;
  }
}

/** `released` without the frames of `dropped`, or undefined when a frame is not found verbatim. */
export function cutEvents(released: Buffer, dropped: readonly SseEvent[]): Buffer | undefined {
  let buf = released;
  for (const ev of dropped) {
    if (ev.event !== undefined || ev.data.includes('\n')) return undefined;
    // Searched from the end, where withheld events (a stream's usage chunk) are; the string is matched as UTF-8.
    const frame = `data: ${ev.data}`;
    const at = buf.lastIndexOf(frame);
    if (at < 0) return undefined;
    let end = at + Buffer.byteLength(frame);
    while (end < buf.length && (buf[end] === 10 || buf[end] === 13)) end++;
    buf = Buffer.concat([buf.subarray(0, at), buf.subarray(end)]);
  }
  return buf;
}
