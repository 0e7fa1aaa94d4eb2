/**
 * Server-sent events: one spec-complete incremental parser and one serialiser.
 *
 * Wire format (WHATWG HTML, "Parsing an event stream"):
 *   stream = [BOM] *event;  lines end with CRLF, LF or CR;  a blank line dispatches the event.
 *   `:comment`  `event: <type>`  `data: <text>` (repeated lines join with LF)  `id: <id>`  `retry: <ms>`
 *   One space after the colon is stripped; a line without a colon is a field name with an empty value.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */

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
  #pending = '';
  #sawCr = false;
  #bomChecked = false;
  readonly #data: string[] = [];
  #event: string | undefined;
  #lastId: string | undefined;
  #retry: number | undefined;
  #dispatchIncompleteAtEnd: boolean;

  constructor(options: SseParserOptions = {}) {
    this.#dispatchIncompleteAtEnd = options.dispatchIncompleteAtEnd === true;
  }

  /** The reconnection time last announced with `retry:`, in milliseconds. */
  get retry(): number | undefined {
    return this.#retry;
  }

  feed(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    return this.#scan(text);
  }

  end(): SseEvent[] {
    const out = this.#scan(this.#decoder.decode());
    if (this.#pending.length > 0) {
      this.#line(this.#pending, out);
      this.#pending = '';
    }
    if (this.#dispatchIncompleteAtEnd) this.#dispatch(out);
    this.#data.length = 0;
    this.#event = undefined;
    return out;
  }

  #scan(input: string): SseEvent[] {
    const out: SseEvent[] = [];
    let text = input;
    if (text.length === 0) return out;
    if (!this.#bomChecked && text.length > 0) {
      this.#bomChecked = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    // A CR that ended the previous chunk may be the first half of a CRLF.
    if (this.#sawCr && text.charCodeAt(0) === 10) start = 1;
    this.#sawCr = false;
    // Line breaks are found with indexOf (native search) rather than a loop over every character: text deltas
    // make up most of a stream's bytes and this runs on every chunk of every stream the gateway relays.
    const n = text.length;
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    while (lf >= 0 || cr >= 0) {
      const isCr = cr >= 0 && (lf < 0 || cr < lf);
      let i = isCr ? cr : lf;
      this.#line(this.#pending + text.slice(start, i), out);
      this.#pending = '';
      if (isCr) {
        if (i + 1 < n) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.#sawCr = true;
        }
      }
      start = i + 1;
      if (lf >= 0 && lf < start) lf = text.indexOf('\n', start);
      if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
    }
    this.#pending += text.slice(start);
    return out;
  }

  #line(line: string, out: SseEvent[]): void {
    if (line.length === 0) {
      this.#dispatch(out);
      return;
    }
    // `data:` and `event:` lines are nearly all of a stream: read them without splitting the line first.
    const first = line.charCodeAt(0);
    if (first === 100 && line.startsWith('data:')) {
      this.#data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      return;
    }
    if (first === 101 && line.startsWith('event:')) {
      this.#event = line.charCodeAt(6) === 32 ? line.slice(7) : line.slice(6);
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' comment
    const colon = line.indexOf(':');
    let field = line;
    let value = '';
    if (colon >= 0) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.charCodeAt(0) === 32) value = value.slice(1);
    }
    switch (field) {
      case 'data':
        this.#data.push(value);
        break;
      case 'event':
        this.#event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.#lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  #dispatch(out: SseEvent[]): void {
    const event = this.#event;
    this.#event = undefined;
    if (this.#data.length === 0) return;
    const ev: SseEvent = { data: this.#data.length === 1 ? this.#data[0] : this.#data.join('\n') };
    this.#data.length = 0;
    if (event !== undefined && event !== '') ev.event = event;
    if (this.#lastId !== undefined) ev.id = this.#lastId;
    out.push(ev);
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
