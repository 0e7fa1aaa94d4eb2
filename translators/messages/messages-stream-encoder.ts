/**
 * StreamEvents → messages-style stream events for a messages client (reference §B "Streaming", §D5).
 *
 * Output: event objects; frame each as `event: <obj.type>` + `data: <json>`. Order: message_start (sent with the
 * first event after `start`, so the usage known by then is in it), blocks, message_delta (stop reason and usage),
 * message_stop; or an `error` event after which nothing follows.
 *
 * The wire has one open block at a time while the model may interleave parts (parallel tool calls whose deltas
 * alternate): the first open part is written through, the events of other parts wait in a queue and are written
 * when their turn comes. Block indexes are renumbered from 0 in wire order. Foreign signatures are never sent:
 * thinking from another family is sent with an empty signature and redacted thinking from another family is
 * dropped.
 */
import type { PartStart, StopReason, StreamEvent, Usage } from '../model.ts';
import { messagesErrorObject } from './messages-errors.ts';
import { encodeMessagesStopReason } from './messages-stop-reason.ts';
import { encodeMessagesUsage } from './messages-usage.ts';
import type { MessagesStreamEvent } from './types.ts';

export interface MessagesStreamEncoderOptions {
  /** The model name to show instead of the upstream's (e.g. the alias the client asked for). */
  model?: string;
}

interface Slot {
  part: PartStart;
  pending: StreamEvent[];
  ended: boolean;
  wire?: number;
  skip: boolean;
}

export class MessagesStreamEncoder {
  #model: string | undefined;
  #id = '';
  #started = false;
  #finished = false;
  #usage: Usage = { source: 'unknown' };
  #slots = new Map<number, Slot>();
  #order: number[] = [];
  #active: number | undefined;
  #nextWire = 0;

  constructor(options: MessagesStreamEncoderOptions = {}) {
    this.#model = options.model;
  }

  push(ev: StreamEvent): MessagesStreamEvent[] {
    if (this.#finished) return [];
    const out: MessagesStreamEvent[] = [];
    if (ev.type === 'start') {
      this.#id = ev.id;
      this.#model ??= ev.model;
      return out;
    }
    if (ev.type === 'error') {
      this.#finished = true;
      out.push({ type: 'error', error: messagesErrorObject(ev.error) });
      return out;
    }
    if (ev.type === 'usage') this.#usage = ev.usage;
    this.#ensureStarted(out);
    switch (ev.type) {
      case 'usage':
        break;
      case 'part_start': {
        const skip = ev.part.kind === 'redacted_thinking' && ev.part.origin !== 'messages';
        this.#slots.set(ev.index, { part: ev.part, pending: [], ended: false, skip });
        this.#order.push(ev.index);
        this.#advance(out);
        break;
      }
      case 'stop':
        this.#stop(ev.reason, ev.stopSequence, out);
        break;
      default: {
        const slot = this.#slots.get(ev.index);
        if (slot === undefined) break;
        if (ev.type === 'part_end') slot.ended = true;
        if (ev.index === this.#active) {
          this.#write(slot, ev, out);
          if (slot.ended) this.#advance(out);
        } else if (ev.type !== 'part_end') slot.pending.push(ev);
        break;
      }
    }
    return out;
  }

  /** Called when the event source is exhausted; a stream that never stopped ends with an error event. */
  end(): MessagesStreamEvent[] {
    if (this.#finished) return [];
    this.#finished = true;
    return [{ type: 'error', error: { type: 'api_error', message: 'The upstream stream ended unexpectedly.' } }];
  }

  #ensureStarted(out: MessagesStreamEvent[]): void {
    if (this.#started) return;
    this.#started = true;
    out.push({
      type: 'message_start',
      message: {
        id: this.#id,
        type: 'message',
        role: 'assistant',
        model: this.#model ?? '',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: encodeMessagesUsage(this.#usage),
      },
    });
  }

  /** Closes the active part if it ended and opens queued parts in order, flushing what they buffered. */
  #advance(out: MessagesStreamEvent[]): void {
    while (true) {
      if (this.#active !== undefined) {
        const slot = this.#slots.get(this.#active);
        if (slot !== undefined && !slot.ended) return;
        if (slot !== undefined && slot.wire !== undefined) out.push({ type: 'content_block_stop', index: slot.wire });
        this.#slots.delete(this.#active);
        this.#order.shift();
        this.#active = undefined;
      }
      const next = this.#order[0];
      if (next === undefined) return;
      this.#active = next;
      const slot = this.#slots.get(next);
      if (slot === undefined) continue;
      if (!slot.skip) this.#open(slot, out);
      for (const ev of slot.pending) this.#write(slot, ev, out);
      slot.pending = [];
    }
  }

  #open(slot: Slot, out: MessagesStreamEvent[]): void {
    const index = (slot.wire = this.#nextWire++);
    const p = slot.part;
    if (p.kind === 'tool_call') out.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: p.id, name: p.name, input: {} } });
    else if (p.kind === 'thinking') out.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    else if (p.kind === 'redacted_thinking') out.push({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: p.data } });
    else out.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
  }

  #write(slot: Slot, ev: StreamEvent, out: MessagesStreamEvent[]): void {
    const index = slot.wire;
    if (index === undefined || slot.skip) return;
    if (ev.type === 'text_delta' && ev.text !== '') out.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: ev.text } });
    else if (ev.type === 'thinking_delta' && ev.text !== '') out.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: ev.text } });
    else if (ev.type === 'tool_args_delta') out.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: ev.json } });
    else if (ev.type === 'signature' && ev.origin === 'messages' && slot.part.kind === 'thinking') {
      out.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: ev.signature } });
    }
  }

  #stop(reason: StopReason, stopSequence: string | undefined, out: MessagesStreamEvent[]): void {
    for (const slot of this.#slots.values()) slot.ended = true;
    this.#advance(out);
    this.#finished = true;
    const u = encodeMessagesUsage(this.#usage);
    out.push({
      type: 'message_delta',
      delta: { stop_reason: encodeMessagesStopReason(reason), stop_sequence: stopSequence ?? null },
      usage: u,
    });
    out.push({ type: 'message_stop' });
  }
}

/** How a messages stream output is framed as SSE. */
export function frameMessagesStreamOut(out: MessagesStreamEvent): { event?: string; data: string } {
  return { event: out.type, data: JSON.stringify(out) };
}
