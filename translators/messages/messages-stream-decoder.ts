/**
 * Messages SSE stream → StreamEvents (reference §B "Streaming", §D5).
 *
 * Wire: `event: <type>` + `data: <json>` whose `type` repeats the event name: message_start, then per block
 * content_block_start / content_block_delta* / content_block_stop, then message_delta (stop reason and cumulative
 * usage that overrides message_start's), then message_stop. `ping` may come at any time; an `error` event may come
 * after HTTP 200 and nothing follows it. Block indexes count blocks of all kinds, as the model's part indexes do,
 * so they are used as is. Blocks the model cannot hold (server tool results, …) are skipped with their deltas.
 *
 * A stream that ends before `message_stop` ends with an error event unless `message_delta` already gave the stop
 * reason (the answer is complete then; only the closing frame is missing).
 */
import type { SseMessage, StopReason, StreamEvent } from '../model.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { decodeMessagesError } from './messages-errors.ts';
import { decodeMessagesStopReason } from './messages-stop-reason.ts';
import { decodeMessagesUsage } from './messages-usage.ts';
import type { MessagesDelta, MessagesStreamEvent, MessagesUsage } from './types.ts';

const TEXT_DELTA_HEAD = '{"type":"content_block_delta","index":';
const TEXT_DELTA_MID = ',"delta":{"type":"text_delta","text":';

/**
 * A text delta as the messages API writes it, read without parsing the whole event: most of a stream's events are
 * text deltas, and only their index and text matter. Any other shape (other key order, spaces, more members)
 * returns undefined and goes through JSON.parse; the text literal itself is always read by JSON.parse.
 */
export function readTextDelta(data: string): { index: number; text: string } | undefined {
  // The fixed parts are compared as slices: String#startsWith measured about three times slower on the strings
  // the SSE parser makes (slices of the chunk's text).
  const end = data.length;
  if (data.charCodeAt(end - 1) !== 125 || data.charCodeAt(end - 2) !== 125 || data.slice(0, TEXT_DELTA_HEAD.length) !== TEXT_DELTA_HEAD) return undefined;
  let i = TEXT_DELTA_HEAD.length;
  const digits = i;
  while (i < data.length && data.charCodeAt(i) >= 48 && data.charCodeAt(i) <= 57) i++;
  if (i === digits || i - digits > 6 || data.slice(i, i + TEXT_DELTA_MID.length) !== TEXT_DELTA_MID) return undefined;
  const from = i + TEXT_DELTA_MID.length;
  const to = data.length - 2;
  if (data.charCodeAt(from) !== 34 || data.charCodeAt(to - 1) !== 34 || to - from < 2) return undefined;
  const index = Number(data.slice(digits, i));
  // Plain text (no escape, quote or control character) is the text itself; anything else is read by JSON.parse,
  // which throws unless the rest is exactly one string literal (an unescaped quote would end it early).
  let plain = true;
  for (let k = from + 1; k < to - 1; k++) {
    const c = data.charCodeAt(k);
    if (c === 92 || c === 34 || c < 32) {
      plain = false;
      break;
    }
  }
  if (plain) return { index, text: data.slice(from + 1, to - 1) };
  let text: unknown;
  try {
    text = JSON.parse(data.slice(from, to));
  } catch {
    return undefined;
  }
  return typeof text === 'string' ? { index, text } : undefined;
}

interface OpenBlock { kind: 'text' | 'tool_call' | 'thinking' | 'redacted_thinking'; startInput?: string; sawArgs?: boolean }

export class MessagesStreamDecoder {
  #started = false;
  #done = false;
  #blocks = new Map<number, OpenBlock>();
  #usage: Partial<MessagesUsage> = {};
  #stop: StopReason | undefined;
  #stopSequence: string | undefined;

  push(ev: SseMessage): StreamEvent[] {
    if (this.#done) return [];
    const out: StreamEvent[] = [];
    const fast = readTextDelta(ev.data);
    if (fast !== undefined) {
      this.#delta(fast.index, { type: 'text_delta', text: fast.text }, out);
      return out;
    }
    let msg: unknown;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return this.#fail(out, 'The upstream sent a stream event that is not JSON.');
    }
    if (!isPlainObject(msg)) return this.#fail(out, 'The upstream sent a stream event that is not an object.');
    // The parsed object is this decoder's own: the event name fills in a missing type without a copy.
    if (typeof msg.type !== 'string') msg.type = ev.event;
    this.#event(msg as unknown as MessagesStreamEvent, out);
    return out;
  }

  end(): StreamEvent[] {
    if (this.#done) return [];
    const out: StreamEvent[] = [];
    if (this.#stop !== undefined) return this.#finish(out);
    return this.#fail(out, 'The upstream stream ended before message_stop.');
  }

  #event(ev: MessagesStreamEvent, out: StreamEvent[]): void {
    switch (ev.type) {
      case 'message_start': {
        const m = isPlainObject(ev.message) ? ev.message : undefined;
        this.#started = true;
        out.push({ type: 'start', id: String(m?.id ?? ''), model: String(m?.model ?? '') });
        if (isPlainObject(m?.usage)) this.#overlayUsage(m.usage, out);
        return;
      }
      case 'content_block_start':
        this.#ensureStarted(out);
        this.#blockStart(ev.index, ev.content_block as Record<string, unknown>, out);
        return;
      case 'content_block_delta':
        this.#delta(ev.index, ev.delta, out);
        return;
      case 'content_block_stop': {
        const block = this.#blocks.get(ev.index);
        if (block === undefined) return;
        if (block.kind === 'tool_call' && !block.sawArgs && block.startInput !== undefined) {
          out.push({ type: 'tool_args_delta', index: ev.index, json: block.startInput });
        }
        this.#blocks.delete(ev.index);
        out.push({ type: 'part_end', index: ev.index });
        return;
      }
      case 'message_delta':
        this.#ensureStarted(out);
        if (isPlainObject(ev.delta) && ev.delta.stop_reason != null) {
          this.#stop = decodeMessagesStopReason(ev.delta.stop_reason);
          if (typeof ev.delta.stop_sequence === 'string') this.#stopSequence = ev.delta.stop_sequence;
        }
        if (isPlainObject(ev.usage)) this.#overlayUsage(ev.usage, out);
        return;
      case 'message_stop':
        this.#ensureStarted(out);
        this.#stop ??= 'end';
        this.#finish(out);
        return;
      case 'error':
        this.#done = true;
        out.push({ type: 'error', error: decodeMessagesError(undefined, ev) });
        return;
      default:
        return; // ping and future event types
    }
  }

  #ensureStarted(out: StreamEvent[]): void {
    if (this.#started) return;
    this.#started = true;
    out.push({ type: 'start', id: '', model: '' });
  }

  #blockStart(index: number, block: Record<string, unknown>, out: StreamEvent[]): void {
    if (!isPlainObject(block) || typeof index !== 'number') return;
    switch (block.type) {
      case 'text':
        this.#blocks.set(index, { kind: 'text' });
        out.push({ type: 'part_start', index, part: { kind: 'text' } });
        if (typeof block.text === 'string' && block.text !== '') out.push({ type: 'text_delta', index, text: block.text });
        return;
      case 'tool_use': {
        const input = isPlainObject(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : undefined;
        this.#blocks.set(index, { kind: 'tool_call', startInput: input });
        out.push({ type: 'part_start', index, part: { kind: 'tool_call', id: String(block.id ?? ''), name: String(block.name ?? '') } });
        return;
      }
      case 'thinking':
        this.#blocks.set(index, { kind: 'thinking' });
        out.push({ type: 'part_start', index, part: { kind: 'thinking' } });
        if (typeof block.thinking === 'string' && block.thinking !== '') out.push({ type: 'thinking_delta', index, text: block.thinking });
        if (typeof block.signature === 'string' && block.signature !== '') {
          out.push({ type: 'signature', index, signature: block.signature, origin: 'messages' });
        }
        return;
      case 'redacted_thinking':
        this.#blocks.set(index, { kind: 'redacted_thinking' });
        out.push({ type: 'part_start', index, part: { kind: 'redacted_thinking', data: String(block.data ?? ''), origin: 'messages' } });
        return;
      default:
        return; // server_tool_use, web_search_tool_result, …: not representable, skipped
    }
  }

  #delta(index: number, delta: MessagesDelta, out: StreamEvent[]): void {
    const block = this.#blocks.get(index);
    if (block === undefined || !isPlainObject(delta)) return;
    if (delta.type === 'text_delta' && block.kind === 'text') {
      if (delta.text !== '') out.push({ type: 'text_delta', index, text: delta.text });
    } else if (delta.type === 'input_json_delta' && block.kind === 'tool_call') {
      // An empty partial_json means `{}` (a tool without arguments).
      if (delta.partial_json !== '') {
        block.sawArgs = true;
        out.push({ type: 'tool_args_delta', index, json: delta.partial_json });
      }
    } else if (delta.type === 'thinking_delta' && block.kind === 'thinking') {
      if (delta.thinking !== '') out.push({ type: 'thinking_delta', index, text: delta.thinking });
    } else if (delta.type === 'signature_delta' && block.kind === 'thinking') {
      out.push({ type: 'signature', index, signature: delta.signature, origin: 'messages' });
    }
  }

  #overlayUsage(u: Partial<MessagesUsage>, out: StreamEvent[]): void {
    for (const [k, v] of Object.entries(u)) if (v !== null && v !== undefined) (this.#usage as Record<string, unknown>)[k] = v;
    out.push({ type: 'usage', usage: decodeMessagesUsage(this.#usage) });
  }

  #finish(out: StreamEvent[]): StreamEvent[] {
    for (const index of this.#blocks.keys()) out.push({ type: 'part_end', index });
    this.#blocks.clear();
    this.#done = true;
    const stop: StreamEvent = { type: 'stop', reason: this.#stop ?? 'end' };
    if (this.#stopSequence !== undefined) stop.stopSequence = this.#stopSequence;
    out.push(stop);
    return out;
  }

  #fail(out: StreamEvent[], message: string): StreamEvent[] {
    this.#done = true;
    out.push({ type: 'error', error: { status: 502, type: 'server', message } });
    return out;
  }
}
