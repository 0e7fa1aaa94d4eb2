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
  /**
   * The bytes after the last boundary, as the chunks that brought them: they hold no boundary, so a new chunk is
   * searched alone (and where it joins them), and they are copied once, when a boundary comes; joining them on every
   * chunk copied an event that spans many chunks again with each one.
   */
  #pending: Buffer[] = [];

  /** The bytes of `chunk` (after what is pending) that end on an event boundary; the rest is kept. */
  release(chunk: Buffer): Buffer | undefined {
    let end = lastBoundary(chunk);
    if (end < 0 && this.#pending.length > 0) {
      // A boundary across the join (at most 4 bytes: CR LF CR LF) ends in the new chunk.
      const tail = this.#tail(3);
      const joined = lastBoundary(Buffer.concat([tail, chunk.subarray(0, 3)]));
      if (joined > tail.length) end = joined - tail.length;
    }
    if (end < 0) {
      this.#pending.push(chunk);
      return undefined;
    }
    const released = end === chunk.length ? chunk : chunk.subarray(0, end);
    const out = this.#pending.length === 0 ? released : Buffer.concat([...this.#pending, released]);
    this.#pending = end < chunk.length ? [chunk.subarray(end)] : [];
    return out;
  }

  /** What is left when the stream ends (an event without its closing blank line). */
  rest(): Buffer | undefined {
    const p = this.#pending;
    this.#pending = [];
    if (p.length === 0) return undefined;
    return p.length === 1 ? p[0] : Buffer.concat(p);
  }

  /** The last `n` pending bytes (fewer when fewer are pending). */
  #tail(n: number): Buffer {
    const parts: Buffer[] = [];
    let have = 0;
    for (let i = this.#pending.length - 1; i >= 0 && have < n; i--) {
      const p = this.#pending[i];
      const take = Math.min(n - have, p.length);
      parts.unshift(p.subarray(p.length - take));
      have += take;
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
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
