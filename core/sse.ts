/**
 * Server-sent events: the incremental parser (eventsource-parser, spec-complete, behind our small interface) and one
 * serialiser.
 *
 * Wire format (WHATWG HTML, "Parsing an event stream"):
 *   stream = [BOM] *event;  lines end with CRLF, LF or CR;  a blank line dispatches the event.
 *   `:comment`  `event: <type>`  `data: <text>` (repeated lines join with LF)  `id: <id>`  `retry: <ms>`
 *   One space after the colon is stripped; a line without a colon is a field name with an empty value.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 *
 * eventsource-parser took the place of a parser of our own: it parses a streamed call's events in 0.5-1.3 µs less
 * CPU (1-5 µs per stream against about 100-130 µs for the whole call; docs/performance.md, "SSE parsing").
 * One difference from the spec remains: an `id:` in an event without data is not remembered (no LLM API sends one).
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

export interface SseEvent {
  /** The `event:` field; undefined for the default `message` type. */
  event?: string;
  data: string;
  /** The last event id seen on the stream (it persists across events, as the spec says). */
  id?: string;
}

export interface SseParserOptions {
  /**
   * The spec discards an event that has no blank line after it when the stream ends. Some servers close the
   * connection right after the last `data:` line; set this to dispatch that last event instead.
   */
  dispatchIncompleteAtEnd?: boolean;
}

/** Incremental parser: `feed()` chunks as they arrive, `end()` once the body is done. */
export class SseParser {
  #decoder = new TextDecoder('utf-8');
  #parser: EventSourceParser;
  #out: SseEvent[] = [];
  #started = false;
  #endsWithCr = false;
  #lastId: string | undefined;
  #retry: number | undefined;
  #dispatchIncompleteAtEnd: boolean;

  constructor(options: SseParserOptions = {}) {
    this.#dispatchIncompleteAtEnd = options.dispatchIncompleteAtEnd === true;
    this.#parser = createParser({ onEvent: (m) => this.#collect(m), onRetry: (ms) => (this.#retry = ms) });
  }

  /** The reconnection time last announced with `retry:`, in milliseconds. */
  get retry(): number | undefined {
    return this.#retry;
  }

  feed(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (text.length === 0) return [];
    // The decoder drops a leading BOM from bytes; text handed in as a string may still carry one.
    if (!this.#started) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.#endsWithCr = text.charCodeAt(text.length - 1) === 13;
    this.#parser.feed(text);
    return this.#take();
  }

  end(): SseEvent[] {
    const rest = this.#decoder.decode();
    if (rest.length > 0) this.feed(rest);
    // A CR that ended the stream ended a line (the parser waits for a possible LF); the extra blank line
    // dispatches an event the stream left without one.
    if (this.#dispatchIncompleteAtEnd) this.#parser.feed('\n\n');
    else if (this.#endsWithCr) this.#parser.feed('\n');
    this.#parser.reset();
    return this.#take();
  }

  #collect(m: EventSourceMessage): void {
    if (m.id !== undefined) this.#lastId = m.id;
    const ev: SseEvent = { data: m.data };
    if (m.event !== undefined) ev.event = m.event;
    if (this.#lastId !== undefined) ev.id = this.#lastId;
    this.#out.push(ev);
  }

  #take(): SseEvent[] {
    if (this.#out.length === 0) return [];
    const out = this.#out;
    this.#out = [];
    return out;
  }
}

/** Parses a byte stream (e.g. an undici body) into events. */
export async function* parseSseStream(
  body: AsyncIterable<Uint8Array | string>,
  options?: SseParserOptions,
): AsyncGenerator<SseEvent> {
  const parser = new SseParser(options);
  for await (const chunk of body) yield* parser.feed(chunk);
  yield* parser.end();
}

export interface SseMessageOut {
  event?: string;
  /** Text payload; embedded line breaks become several `data:` lines. */
  data: string;
  id?: string;
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** Serialises one event, ending with the blank line. Throws when `event` or `id` contains a line break. */
export function writeSse(msg: SseMessageOut): string {
  let out = '';
  if (msg.event !== undefined) {
    if (LINE_BREAK.test(msg.event)) throw new TypeError('SSE event name must not contain a line break');
    out += `event: ${msg.event}\n`;
  }
  if (msg.id !== undefined) {
    if (LINE_BREAK.test(msg.id) || msg.id.includes('\0')) throw new TypeError('SSE id must not contain a line break or NUL');
    out += `id: ${msg.id}\n`;
  }
  if (msg.retry !== undefined) {
    if (!Number.isInteger(msg.retry) || msg.retry < 0) throw new TypeError('SSE retry must be a non-negative integer');
    out += `retry: ${msg.retry}\n`;
  }
  for (const line of msg.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return out + '\n';
}

/** Serialises a comment line (used as a keep-alive). */
export function writeSseComment(text = ''): string {
  if (LINE_BREAK.test(text)) throw new TypeError('SSE comment must not contain a line break');
  return `:${text === '' ? '' : ' ' + text}\n\n`;
}
