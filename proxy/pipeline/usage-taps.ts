/**
 * Reading usage on the side of a same-style stream (DESIGN.md §3 step 7): the bytes go to the client untouched
 * while the gateway parses the SSE events as they pass and looks only at the few that carry usage or end the
 * stream. Full JSON parsing happens only for those events (two per messages stream, one per chat or
 * generative-language stream), never for text deltas.
 *
 * A tap also says whether the stream reached its normal end (`complete`) or carried the upstream's own error event
 * (`failed`, already in the client's style since the styles are the same); a stream with neither was cut short.
 * The chat tap can hide the usage chunk the gateway asked for on the client's behalf (reference §E7).
 */
import type { SseEvent } from '../../core/sse.ts';
import type { StyleName, Usage } from '../../translators/model.ts';
import { mergeUsage } from '../../translators/usage.ts';
import { decodeChatUsage } from '../../translators/chat/chat-usage.ts';
import { decodeMessagesUsage } from '../../translators/messages/messages-usage.ts';
import { convertGenerativeUsage } from '../../translators/generative/convert-generative-usage.ts';
import { convertResponsesUsage } from '../../translators/responses/convert-responses-usage.ts';
import { valueEnd } from './rewrite-json-body.ts';
import { opensWithError } from './final-event.ts';

export interface UsageTap {
  /** Sees one event; false when the event must not reach the client. */
  push(ev: SseEvent): boolean;
  usage(): Usage;
  readonly complete: boolean;
  readonly failed: boolean;
  /** What a gateway error event appended to this stream continues from (responses: response id, event number). */
  continuation?(): { id?: string; sequenceFrom?: number };
}

/**
 * Whether `d` contains `key`, searched from the end: String#lastIndexOf measured about four times faster than
 * indexOf/includes on these short event strings, and the members looked for sit at the end of their chunks.
 */
function has(d: string, key: string): boolean {
  return d.lastIndexOf(key) >= 0;
}

/**
 * Whether the last `"key"` in `d` is followed (after optional spaces and a colon) by the character `open`:
 * `"usage":{`, `"finish_reason":"`. The last occurrence is the chunk's own member (content comes first, and a key
 * quoted inside a string is escaped, \"usage\", so it never matches). A position check, not a regular expression:
 * it runs on every chunk of every chat stream.
 */
function memberOpens(d: string, key: string, open: number): boolean {
  return memberStart(d, key, open) >= 0;
}

/** Where the value of the last `"key"` member starts when it opens with the character `open`; -1 otherwise. */
function memberStart(d: string, key: string, open: number): number {
  const at = d.lastIndexOf(key);
  if (at < 0) return -1;
  let i = at + key.length;
  while (d.charCodeAt(i) === 32) i++;
  if (d.charCodeAt(i) !== 58 /* : */) return -1;
  i++;
  while (d.charCodeAt(i) === 32) i++;
  return d.charCodeAt(i) === open ? i : -1;
}

/** The value of the last `"key"` member that is an object, parsed alone (not the whole text around it). */
function memberObject(d: string, key: string): Record<string, unknown> | undefined {
  const i = memberStart(d, key, 123 /* { */);
  return i < 0 ? undefined : parse(d.slice(i, valueEnd(d, i)));
}

/** Whether the last `"key"` member is an empty array. */
function memberIsEmptyArray(d: string, key: string): boolean {
  let i = memberStart(d, key, 91 /* [ */);
  if (i < 0) return false;
  i++;
  while (d.charCodeAt(i) === 32) i++;
  return d.charCodeAt(i) === 93 /* ] */;
}

function parse(data: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(data);
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

class ChatTap implements UsageTap {
  #hideUsageChunk: boolean;
  #usage: Usage = { source: 'unknown' };
  #done = false;
  #finish = false;
  failed = false;

  constructor(hideUsageChunk: boolean) {
    this.#hideUsageChunk = hideUsageChunk;
  }

  get complete(): boolean {
    return this.#done || this.#finish;
  }

  push(ev: SseEvent): boolean {
    const d = ev.data;
    if (d === '[DONE]') {
      this.#done = true;
      return true;
    }
    // An error object starts with its member (an anchored test fails at the first byte of an ordinary chunk).
    if (ev.event === 'error' || opensWithError(d)) {
      this.failed = true;
      return true;
    }
    if (!this.#finish && memberOpens(d, '"finish_reason"', 34 /* " */)) this.#finish = true;
    // Only the usage member is parsed, not the chunk around it.
    const usage = memberObject(d, '"usage"');
    if (usage !== undefined) {
      this.#usage = decodeChatUsage(usage as never);
      if (this.#hideUsageChunk && memberIsEmptyArray(d, '"choices"')) return false;
    }
    return true;
  }

  usage(): Usage {
    return this.#usage;
  }
}

class MessagesTap implements UsageTap {
  #usage: Usage = { source: 'unknown' };
  complete = false;
  failed = false;

  push(ev: SseEvent): boolean {
    switch (ev.event) {
      case 'message_start': {
        const msg = parse(ev.data)?.message as { usage?: unknown } | undefined;
        if (msg?.usage) this.#usage = mergeUsage(this.#usage, decodeMessagesUsage(msg.usage));
        break;
      }
      case 'message_delta': {
        const u = parse(ev.data)?.usage;
        if (u) this.#usage = mergeUsage(this.#usage, decodeMessagesUsage(u));
        break;
      }
      case 'message_stop':
        this.complete = true;
        break;
      case 'error':
        this.failed = true;
        break;
    }
    return true;
  }

  usage(): Usage {
    return this.#usage;
  }
}

class GenerativeTap implements UsageTap {
  #last: string | undefined;
  complete = false;
  failed = false;

  push(ev: SseEvent): boolean {
    const d = ev.data;
    if (opensWithError(d)) this.failed = true;
    else {
      // usageMetadata is cumulative: keep the last frame that has it, parse it once at the end.
      if (has(d, '"usageMetadata"')) this.#last = d;
      if (has(d, '"finishReason"')) this.complete = true;
    }
    return true;
  }

  usage(): Usage {
    const meta = this.#last === undefined ? undefined : parse(this.#last)?.usageMetadata;
    return meta ? convertGenerativeUsage(meta) : { source: 'unknown' };
  }
}

const SEQUENCE_KEY = '"sequence_number":';
const RESPONSE_ID = /"id"\s*:\s*"(resp_[^"\\]*)"/;

class ResponsesTap implements UsageTap {
  #usage: Usage = { source: 'unknown' };
  #id: string | undefined;
  #sequence = -1;
  complete = false;
  failed = false;

  push(ev: SseEvent): boolean {
    const t = ev.event;
    const d = ev.data;
    if (this.#id === undefined && t === 'response.created') this.#id = RESPONSE_ID.exec(d)?.[1];
    const at = d.lastIndexOf(SEQUENCE_KEY);
    if (at >= 0) {
      const n = parseInt(d.slice(at + SEQUENCE_KEY.length, at + SEQUENCE_KEY.length + 12), 10);
      if (Number.isFinite(n) && n > this.#sequence) this.#sequence = n;
    }
    if (t === 'response.completed' || t === 'response.incomplete' || t === 'response.failed') {
      const r = parse(ev.data)?.response as { usage?: unknown } | undefined;
      if (r?.usage) this.#usage = convertResponsesUsage(r.usage as never);
      if (t === 'response.failed') this.failed = true;
      else this.complete = true;
    } else if (t === 'error') this.failed = true;
    return true;
  }

  usage(): Usage {
    return this.#usage;
  }

  continuation(): { id?: string; sequenceFrom?: number } {
    return { ...(this.#id !== undefined ? { id: this.#id } : {}), sequenceFrom: this.#sequence + 1 };
  }
}

export function createUsageTap(style: StyleName, opts: { hideUsageChunk?: boolean } = {}): UsageTap {
  switch (style) {
    case 'chat':
      return new ChatTap(opts.hideUsageChunk === true);
    case 'messages':
      return new MessagesTap();
    case 'generative':
      return new GenerativeTap();
    case 'responses':
      return new ResponsesTap();
  }
}

const USAGE_KEY: Record<StyleName, string> = { chat: '"usage"', messages: '"usage"', responses: '"usage"', generative: '"usageMetadata"' };

/**
 * Usage of a same-style JSON answer read from its bytes: only the top-level usage member is parsed (the last
 * occurrence of its key; a key quoted inside a string is escaped and cannot match). Falls back to parsing the whole
 * answer when that member cannot be cut out.
 */
export function usageOfRaw(style: StyleName, text: string): Usage {
  const key = USAGE_KEY[style];
  const member = memberObject(text, key);
  if (member !== undefined) return usageOfJson(style, { [key.slice(1, -1)]: member });
  const whole = parse(text);
  return whole ? usageOfJson(style, whole) : { source: 'unknown' };
}

/** Usage of a same-style JSON answer, without decoding the rest of it. */
export function usageOfJson(style: StyleName, json: unknown): Usage {
  if (typeof json !== 'object' || json === null) return { source: 'unknown' };
  const o = json as Record<string, unknown>;
  switch (style) {
    case 'chat':
      return decodeChatUsage(o.usage as never);
    case 'messages':
      return decodeMessagesUsage(o.usage as never);
    case 'generative':
      return o.usageMetadata ? convertGenerativeUsage(o.usageMetadata as never) : { source: 'unknown' };
    case 'responses':
      return convertResponsesUsage(o.usage as never);
  }
}
