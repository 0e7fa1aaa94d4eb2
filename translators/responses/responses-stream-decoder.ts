// Responses-style stream → StreamEvents (reference §F3, §F5 "reading a responses upstream").
//
// Wire: `event: <type>` + `data: <json>` frames; items open with `response.output_item.added` and close with
// `response.output_item.done`; deltas are routed by `item_id` (parallel calls have distinct items). A message's
// content parts open with `content_part.added`; a call's arguments stream as `function_call_arguments.delta`; a
// reasoning item streams summary text and gets its `encrypted_content` on `output_item.done`, which becomes the
// thinking signature. Usage arrives only on the terminal event (`response.completed`, `.incomplete`, `.failed`).
// Partial lifecycles (a delta or `done` without its `added`, reference §F6.1) are repaired by opening the part
// late. An `error` event or a failed response ends with `error`; a stream without a terminal event too.
// @see https://platform.openai.com/docs/api-reference/responses-streaming

import type { SseMessage, StreamEvent, UpstreamError, Usage } from '../model.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { convertResponsesUsage } from './convert-responses-usage.ts';
import { mapResponsesStatus } from './map-responses-status.ts';
import { decodeResponsesError } from './responses-errors.ts';
import type { ResponsesOutputItem, ResponsesResponse, ResponsesStreamEvent } from './types.ts';

interface ItemState {
  kind: string;
  /** Part index of a call or reasoning item. */
  index?: number;
  /** Part index per content index of a message item. */
  content: Map<number, { index: number; seen: boolean; open: boolean }>;
  seen: boolean;
  closed: boolean;
  /** Summary indexes whose text arrived as deltas. */
  summaries: Set<number>;
}

type Of<T extends ResponsesStreamEvent['type']> = Extract<ResponsesStreamEvent, { type: T }>;

export class ResponsesStreamDecoder {
  #started = false;
  #done = false;
  #next = 0;
  #items = new Map<string, ItemState>();
  #sawCall = false;
  #usage: Usage = { source: 'unknown' };

  push(msg: SseMessage): StreamEvent[] {
    if (this.#done) return [];
    const data = msg.data.trim();
    if (data === '' || data === '[DONE]') return [];
    let ev: ResponsesStreamEvent;
    try {
      const json: unknown = JSON.parse(data);
      if (!isPlainObject(json)) return [];
      ev = (typeof json.type === 'string' ? json : { ...json, type: msg.event }) as unknown as ResponsesStreamEvent;
    } catch {
      return this.#fail([], { status: 502, type: 'server', message: 'The upstream sent a stream event that is not JSON.' });
    }
    const out: StreamEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      const r = 'response' in ev && isPlainObject(ev.response) ? ev.response : undefined;
      out.push({ type: 'start', id: typeof r?.id === 'string' ? r.id : '', model: typeof r?.model === 'string' ? r.model : '' });
    }
    this.#event(ev, out);
    return out;
  }

  end(): StreamEvent[] {
    if (this.#done) return [];
    return this.#fail([], { status: 502, type: 'server', message: 'The upstream stream ended before the answer was finished.' });
  }

  #event(ev: ResponsesStreamEvent, out: StreamEvent[]): void {
    switch (ev.type) {
      case 'response.output_item.added': return this.#added(ev, out);
      case 'response.content_part.added': return void this.#content(ev.item_id, ev.content_index, ev.part.type === 'refusal' ? 'refusal' : 'text', out);
      case 'response.output_text.delta':
      case 'response.refusal.delta': return this.#text(ev.item_id, ev.content_index, ev.type === 'response.refusal.delta' ? 'refusal' : 'text', ev.delta, true, out);
      case 'response.output_text.done': return this.#text(ev.item_id, ev.content_index, 'text', ev.text, false, out);
      case 'response.refusal.done': return this.#text(ev.item_id, ev.content_index, 'refusal', ev.refusal, false, out);
      case 'response.content_part.done': return this.#contentDone(ev, out);
      case 'response.function_call_arguments.delta': return this.#args(ev.item_id, ev.delta, true, out);
      case 'response.function_call_arguments.done': return this.#args(ev.item_id, ev.arguments, false, out);
      case 'response.reasoning_summary_part.added': return this.#summaryPart(ev, out);
      case 'response.reasoning_summary_text.delta': return this.#thinking(ev.item_id, ev.summary_index, ev.delta, true, out);
      case 'response.reasoning_summary_text.done': return this.#thinking(ev.item_id, ev.summary_index, ev.text, false, out);
      case 'response.reasoning_text.delta': return this.#thinking(ev.item_id, ev.content_index, ev.delta, true, out);
      case 'response.output_item.done': return this.#itemDone(ev.item, out);
      case 'response.completed':
      case 'response.incomplete': return this.#finish(ev.response, out);
      case 'response.failed': return this.#failed(ev, out);
      case 'error': return void this.#fail(out, decodeResponsesError(0, ev));
      default: return undefined;
    }
  }

  #item(id: string, kind: string): ItemState {
    let item = this.#items.get(id);
    if (item === undefined) {
      item = { kind, content: new Map(), seen: false, closed: false, summaries: new Set() };
      this.#items.set(id, item);
    }
    return item;
  }

  /** Opens the part of a call or reasoning item (once). */
  #open(id: string, item: ResponsesOutputItem | undefined, kind: 'function_call' | 'reasoning', out: StreamEvent[]): ItemState {
    const state = this.#item(id, kind);
    if (state.index !== undefined) return state;
    state.index = this.#next++;
    if (kind === 'function_call') {
      this.#sawCall = true;
      const call = item?.type === 'function_call' ? item : undefined;
      out.push({ type: 'part_start', index: state.index, part: { kind: 'tool_call', id: call?.call_id ?? id, name: call?.name ?? '' } });
    } else out.push({ type: 'part_start', index: state.index, part: { kind: 'thinking' } });
    return state;
  }

  #added(ev: Of<'response.output_item.added'>, out: StreamEvent[]): void {
    const item = ev.item;
    if (item.type === 'function_call' || item.type === 'reasoning') {
      this.#open(item.id, item, item.type, out);
      if (item.type === 'function_call' && typeof item.arguments === 'string' && item.arguments !== '') this.#args(item.id, item.arguments, true, out);
    } else this.#item(item.id, item.type);
  }

  #content(itemId: string, contentIndex: number, kind: 'text' | 'refusal', out: StreamEvent[]): { index: number; seen: boolean; open: boolean } {
    const item = this.#item(itemId, 'message');
    let part = item.content.get(contentIndex);
    if (part === undefined) {
      part = { index: this.#next++, seen: false, open: true };
      item.content.set(contentIndex, part);
      out.push({ type: 'part_start', index: part.index, part: { kind } });
    }
    return part;
  }

  #text(itemId: string, contentIndex: number, kind: 'text' | 'refusal', text: string, delta: boolean, out: StreamEvent[]): void {
    const part = this.#content(itemId, contentIndex, kind, out);
    if (!part.open || (!delta && part.seen) || text === '') return;
    part.seen = true;
    out.push({ type: 'text_delta', index: part.index, text });
  }

  #contentDone(ev: Of<'response.content_part.done'>, out: StreamEvent[]): void {
    const text = ev.part.type === 'refusal' ? ev.part.refusal : ev.part.text;
    this.#text(ev.item_id, ev.content_index, ev.part.type === 'refusal' ? 'refusal' : 'text', text, false, out);
    const part = this.#content(ev.item_id, ev.content_index, 'text', out);
    if (part.open) out.push({ type: 'part_end', index: part.index });
    part.open = false;
  }

  #args(itemId: string, json: string, delta: boolean, out: StreamEvent[]): void {
    const state = this.#open(itemId, undefined, 'function_call', out);
    if ((!delta && state.seen) || json === '' || state.index === undefined) return;
    state.seen = true;
    out.push({ type: 'tool_args_delta', index: state.index, json });
  }

  #summaryPart(ev: Of<'response.reasoning_summary_part.added'>, out: StreamEvent[]): void {
    const state = this.#open(ev.item_id, undefined, 'reasoning', out);
    if (state.seen && state.index !== undefined) out.push({ type: 'thinking_delta', index: state.index, text: '\n\n' });
  }

  #thinking(itemId: string, summary: number, text: string, delta: boolean, out: StreamEvent[]): void {
    const state = this.#open(itemId, undefined, 'reasoning', out);
    if ((!delta && state.summaries.has(summary)) || text === '' || state.index === undefined) return;
    state.summaries.add(summary);
    state.seen = true;
    out.push({ type: 'thinking_delta', index: state.index, text });
  }

  #itemDone(item: ResponsesOutputItem, out: StreamEvent[]): void {
    if (item.type === 'message') {
      item.content.forEach((c, k) => {
        const text = c.type === 'refusal' ? c.refusal : c.text;
        this.#text(item.id, k, c.type === 'refusal' ? 'refusal' : 'text', text, false, out);
      });
      for (const part of this.#item(item.id, 'message').content.values()) {
        if (part.open) out.push({ type: 'part_end', index: part.index });
        part.open = false;
      }
      return;
    }
    if (item.type !== 'function_call' && item.type !== 'reasoning') return;
    const state = this.#open(item.id, item, item.type, out);
    if (state.index === undefined || state.closed) return;
    if (item.type === 'function_call') this.#args(item.id, item.arguments, false, out);
    else {
      if (!state.seen) (item.summary ?? []).forEach((s, k) => this.#thinking(item.id, k, (k > 0 ? '\n\n' : '') + s.text, false, out));
      if (typeof item.encrypted_content === 'string' && item.encrypted_content !== '') {
        out.push({ type: 'signature', index: state.index, signature: item.encrypted_content, origin: 'responses' });
      }
    }
    out.push({ type: 'part_end', index: state.index });
    state.closed = true;
  }

  #closeAll(out: StreamEvent[]): void {
    for (const state of this.#items.values()) {
      for (const part of state.content.values()) if (part.open) out.push({ type: 'part_end', index: part.index });
      state.content.clear();
      if (state.index !== undefined && !state.closed) out.push({ type: 'part_end', index: state.index });
      state.closed = true;
    }
  }

  #finish(r: ResponsesResponse, out: StreamEvent[]): void {
    this.#closeAll(out);
    this.#done = true;
    const usage = convertResponsesUsage(r?.usage);
    if (usage.source !== 'unknown') out.push({ type: 'usage', usage });
    out.push({ type: 'stop', reason: mapResponsesStatus(r?.status, r?.incomplete_details?.reason, this.#sawCall) });
  }

  #failed(ev: Of<'response.failed'>, out: StreamEvent[]): void {
    this.#usage = convertResponsesUsage(ev.response?.usage);
    const err = ev.response?.error;
    this.#fail(out, decodeResponsesError(0, { error: isPlainObject(err) ? err : { code: 'server_error', message: 'The upstream response failed.' } }));
  }

  #fail(out: StreamEvent[], error: UpstreamError): StreamEvent[] {
    this.#done = true;
    if (this.#usage.source !== 'unknown') out.push({ type: 'usage', usage: this.#usage });
    out.push({ type: 'error', error });
    return out;
  }
}
