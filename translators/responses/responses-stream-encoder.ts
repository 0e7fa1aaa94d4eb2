// StreamEvents → responses-style stream events (reference §F5 "serving a responses client", §F6.1).
// The full lifecycle is always sent, because clients such as Codex break on partial ones:
// `response.created`, `response.in_progress`; per text part a message item (`output_item.added`,
// `content_part.added`, `output_text.delta`…, `output_text.done`, `content_part.done`, `output_item.done`); per call
// a function_call item (`output_item.added`, `function_call_arguments.delta`…, `.done`, `output_item.done`); per
// thinking part a reasoning item with one summary part; then one terminal event, `response.completed`, or
// `response.incomplete` (length or filter) or `response.failed`, carrying the whole `output` and the usage.
// An error becomes an `error` event followed by `response.failed`. `sequence_number` counts from 0.
// The caller frames each event as `event: <type>` + `data: <json>`.

import type { Conversation, StreamEvent, StopReason, UpstreamError, Usage } from '../model.ts';
import { responsesId, responsesObject } from './encode-responses-response.ts';
import { responsesErrorBody } from './responses-errors.ts';
import { clientToolName, responsesItemId } from './responses-items.ts';
import type { ResponsesOutputItem, ResponsesResponse, ResponsesStatus, ResponsesStreamEvent } from './types.ts';

/** Events as sent: each with its sequence number. */
export type ResponsesOutEvent = ResponsesStreamEvent & { sequence_number: number };

type Emit = ResponsesStreamEvent extends infer E ? (E extends ResponsesStreamEvent ? Omit<E, 'sequence_number'> : never) : never;

export interface ResponsesStreamEncoderOptions {
  /** The model name to show instead of the upstream's. */
  model?: string;
  /** Unix seconds for `created_at` (default: now). */
  created?: number;
  /** Closing frames only, for a stream whose start the client already has (see StreamEncoderOptions). */
  continuing?: { id?: string; sequenceFrom?: number };
  /** The client's decoded request: tool names it changed are mapped back, and the response repeats its fields. */
  request?: Conversation;
}

/** One event as an SSE frame: `event: <type>` + `data: <json>`. */
export function frameResponsesStreamOut(ev: ResponsesOutEvent): { event?: string; data: string } {
  return { event: ev.type, data: JSON.stringify(ev) };
}

interface PartState {
  kind: 'text' | 'refusal' | 'tool_call' | 'thinking';
  itemId: string;
  outputIndex: number;
  text: string;
  callId?: string;
  name?: string;
  signature?: string;
  summaryOpen: boolean;
}

export class ResponsesStreamEncoder {
  #seq = 0;
  #id = '';
  #model = '';
  #created = 0;
  #started = false;
  #done = false;
  #parts = new Map<number, PartState>();
  #output: { index: number; item: ResponsesOutputItem }[] = [];
  #nextOutput = 0;
  #usage: Usage = { source: 'unknown' };
  #options: ResponsesStreamEncoderOptions;

  constructor(options: ResponsesStreamEncoderOptions = {}) {
    this.#options = options;
    const c = options.continuing;
    if (c !== undefined) {
      // No second response.created: the client saw the upstream's; the closing events carry on its id and numbering.
      this.#started = true;
      this.#id = responsesId(c.id ?? `gw${Date.now().toString(36)}`);
      this.#model = options.model ?? '';
      this.#created = options.created ?? Math.floor(Date.now() / 1000);
      this.#seq = c.sequenceFrom ?? 0;
    }
  }

  push(ev: StreamEvent): ResponsesOutEvent[] {
    if (this.#done) return [];
    const out: ResponsesOutEvent[] = [];
    const emit = (e: Emit): void => {
      out.push({ ...e, sequence_number: this.#seq++ } as ResponsesOutEvent);
    };
    if (!this.#started) this.#start(ev.type === 'start' ? ev : { id: '', model: '' }, emit);
    switch (ev.type) {
      case 'start':
        break;
      case 'part_start':
        this.#open(ev.index, ev.part.kind === 'tool_call' ? ev.part : { kind: ev.part.kind }, emit);
        break;
      case 'text_delta':
        this.#text(ev.index, ev.text, emit);
        break;
      case 'thinking_delta':
        this.#thinking(ev.index, ev.text, emit);
        break;
      case 'tool_args_delta': {
        const p = this.#parts.get(ev.index);
        if (p?.kind !== 'tool_call' || ev.json === '') break;
        p.text += ev.json;
        emit({ type: 'response.function_call_arguments.delta', item_id: p.itemId, output_index: p.outputIndex, delta: ev.json });
        break;
      }
      case 'signature': {
        const p = this.#parts.get(ev.index);
        if (p?.kind === 'thinking' && ev.origin === 'responses') p.signature = ev.signature;
        break;
      }
      case 'part_end':
        this.#close(ev.index, emit);
        break;
      case 'usage':
        this.#usage = ev.usage;
        break;
      case 'stop':
        this.#finish(ev.reason, undefined, emit);
        break;
      case 'error':
        this.#finish(undefined, ev.error, emit);
        break;
    }
    return out;
  }

  /** The upstream side ended; without a terminal event the client gets an error and a failed response. */
  end(): ResponsesOutEvent[] {
    if (this.#done) return [];
    return this.push({ type: 'error', error: { status: 502, type: 'server', message: 'The upstream stream ended before the answer was finished.' } });
  }

  #response(status: ResponsesStatus, stopReason?: StopReason, error?: UpstreamError): ResponsesResponse {
    const output = [...this.#output].sort((a, b) => a.index - b.index).map((o) => o.item);
    const request = this.#options.request;
    return responsesObject({
      id: this.#id, model: this.#model, created: this.#created, status, output, usage: this.#usage, ...(stopReason !== undefined ? { stopReason } : {}),
      ...(error !== undefined ? { error } : {}), ...(request !== undefined ? { request } : {}),
    });
  }

  #start(s: { id: string; model: string }, emit: (e: Emit) => void): void {
    this.#started = true;
    this.#id = responsesId(s.id !== '' ? s.id : `gw${Date.now().toString(36)}`);
    this.#model = this.#options.model ?? s.model;
    this.#created = this.#options.created ?? Math.floor(Date.now() / 1000);
    emit({ type: 'response.created', response: this.#response('in_progress') });
    emit({ type: 'response.in_progress', response: this.#response('in_progress') });
  }

  #open(index: number, part: { kind: string; id?: string; name?: string }, emit: (e: Emit) => void): void {
    if (part.kind === 'redacted_thinking' || this.#parts.has(index)) return;
    const kind = part.kind as PartState['kind'];
    const outputIndex = this.#nextOutput++;
    const prefix = kind === 'tool_call' ? 'fc' : kind === 'thinking' ? 'rs' : 'msg';
    const p: PartState = { kind, itemId: responsesItemId(prefix, this.#id, outputIndex), outputIndex, text: '', summaryOpen: false };
    if (part.id !== undefined) p.callId = part.id;
    if (part.name !== undefined) p.name = part.name;
    this.#parts.set(index, p);
    const base = { item_id: p.itemId, output_index: outputIndex, content_index: 0 };
    if (kind === 'tool_call') {
      emit({ type: 'response.output_item.added', output_index: outputIndex, item: { type: 'function_call', id: p.itemId, call_id: p.callId ?? '', ...clientToolName(p.name ?? '', this.#options.request?.toolRenames), arguments: '', status: 'in_progress' } });
    } else if (kind === 'thinking') {
      emit({ type: 'response.output_item.added', output_index: outputIndex, item: { type: 'reasoning', id: p.itemId, summary: [] } });
    } else {
      emit({ type: 'response.output_item.added', output_index: outputIndex, item: { type: 'message', id: p.itemId, role: 'assistant', status: 'in_progress', content: [] } });
      emit({ type: 'response.content_part.added', ...base, part: kind === 'refusal' ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [], logprobs: [] } });
    }
  }

  #text(index: number, text: string, emit: (e: Emit) => void): void {
    const p = this.#parts.get(index);
    if (p === undefined || (p.kind !== 'text' && p.kind !== 'refusal') || text === '') return;
    p.text += text;
    const base = { item_id: p.itemId, output_index: p.outputIndex, content_index: 0, delta: text };
    emit(p.kind === 'refusal' ? { type: 'response.refusal.delta', ...base } : { type: 'response.output_text.delta', ...base, logprobs: [] });
  }

  #thinking(index: number, text: string, emit: (e: Emit) => void): void {
    const p = this.#parts.get(index);
    if (p?.kind !== 'thinking' || text === '') return;
    const base = { item_id: p.itemId, output_index: p.outputIndex, summary_index: 0 };
    if (!p.summaryOpen) {
      p.summaryOpen = true;
      emit({ type: 'response.reasoning_summary_part.added', ...base, part: { type: 'summary_text', text: '' } });
    }
    p.text += text;
    emit({ type: 'response.reasoning_summary_text.delta', ...base, delta: text });
  }

  /** `status` is `incomplete` for an item cut short by an error (the client must not take it as whole). */
  #close(index: number, emit: (e: Emit) => void, status: 'completed' | 'incomplete' = 'completed'): void {
    const p = this.#parts.get(index);
    if (p === undefined) return;
    this.#parts.delete(index);
    const base = { item_id: p.itemId, output_index: p.outputIndex };
    let item: ResponsesOutputItem;
    if (p.kind === 'tool_call') {
      const named = clientToolName(p.name ?? '', this.#options.request?.toolRenames);
      // `name` is not in every SDK's type of this event but is in the API's schema, and typed clients read it.
      emit({ type: 'response.function_call_arguments.done', ...base, name: named.name, arguments: p.text });
      item = { type: 'function_call', id: p.itemId, call_id: p.callId ?? '', ...named, arguments: p.text, status };
    } else if (p.kind === 'thinking') {
      if (p.summaryOpen) {
        emit({ type: 'response.reasoning_summary_text.done', ...base, summary_index: 0, text: p.text });
        emit({ type: 'response.reasoning_summary_part.done', ...base, summary_index: 0, part: { type: 'summary_text', text: p.text } });
      }
      item = { type: 'reasoning', id: p.itemId, summary: p.summaryOpen ? [{ type: 'summary_text', text: p.text }] : [] };
      if (p.signature !== undefined) item.encrypted_content = p.signature;
    } else {
      const part = p.kind === 'refusal' ? { type: 'refusal' as const, refusal: p.text } : { type: 'output_text' as const, text: p.text, annotations: [], logprobs: [] };
      if (p.kind === 'refusal') emit({ type: 'response.refusal.done', ...base, content_index: 0, refusal: p.text });
      else emit({ type: 'response.output_text.done', ...base, content_index: 0, text: p.text, logprobs: [] });
      emit({ type: 'response.content_part.done', ...base, content_index: 0, part });
      item = { type: 'message', id: p.itemId, role: 'assistant', status, content: [part] };
    }
    emit({ type: 'response.output_item.done', output_index: p.outputIndex, item });
    this.#output.push({ index: p.outputIndex, item });
  }

  #finish(reason: StopReason | undefined, error: UpstreamError | undefined, emit: (e: Emit) => void): void {
    for (const index of [...this.#parts.keys()]) this.#close(index, emit, error !== undefined ? 'incomplete' : 'completed');
    this.#done = true;
    if (error !== undefined) {
      const body = responsesErrorBody(error).error;
      // The documented flat fields, and the same error nested as `error`: the SDKs that raise only on a nested
      // `error` object (openai-python, older openai-node) would otherwise end the loop quietly on truncated text.
      const code = body?.code ?? null;
      emit({ type: 'error', code, message: error.message, param: null, error: { type: body?.type ?? 'server_error', code, message: error.message, param: null } });
      emit({ type: 'response.failed', response: this.#response('failed', undefined, error) });
      return;
    }
    const response = this.#response('completed', reason);
    const type = response.status === 'incomplete' ? 'response.incomplete' : response.status === 'failed' ? 'response.failed' : 'response.completed';
    emit({ type, response });
  }
}
