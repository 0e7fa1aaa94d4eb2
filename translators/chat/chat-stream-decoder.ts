/**
 * Chat-completions SSE stream → StreamEvents (reference §A "Streaming", §D5, §E1, §E7).
 *
 * Wire: `data: <chunk>` frames, no `event:` lines, ending with `data: [DONE]`. Text arrives in `delta.content`,
 * tool calls in fragments keyed by `tool_calls[].index` (the first fragment carries id and name), the finish reason
 * on a chunk of its own (or together with content), and with `include_usage` one `choices:[]` chunk with usage just
 * before `[DONE]`. An error may arrive as `data: {"error":…}` (sometimes under `event: error`).
 *
 * The `stop` event is held until `[DONE]` (so the usage chunk that follows the finish chunk comes first). A stream
 * that ends before any finish reason ends with an error event.
 */
import type { SseMessage, StopReason, StreamEvent } from '../model.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { makeToolCallId } from '../tool-ids.ts';
import { decodeChatError } from './chat-errors.ts';
import { decodeChatFinishReason } from './chat-stop-reason.ts';
import { decodeChatUsage } from './chat-usage.ts';
import type { ChatChunk, ChatDelta, ChatToolCallDelta } from './types.ts';

interface ToolSlot { part: number; id: string }

export class ChatStreamDecoder {
  #started = false;
  #done = false;
  #id = '';
  #nextPart = 0;
  #text: number | undefined;
  #thinking: number | undefined;
  #refusal: number | undefined;
  #tools = new Map<number, ToolSlot>();
  #open: number[] = [];
  #finish: string | null | undefined;
  #sawTool = false;
  #sawRefusal = false;

  push(ev: SseMessage): StreamEvent[] {
    if (this.#done) return [];
    const out: StreamEvent[] = [];
    const data = ev.data.trim();
    if (data === '[DONE]') return this.#finishStream(out, true);
    if (data === '') return out;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return this.#fail(out, 'The upstream sent a stream chunk that is not JSON.');
    }
    if (!isPlainObject(chunk)) return this.#fail(out, 'The upstream sent a stream chunk that is not an object.');
    if (ev.event === 'error' || chunk.error !== undefined) {
      this.#done = true;
      out.push({ type: 'error', error: decodeChatError(undefined, chunk.error !== undefined ? chunk : { error: chunk }) });
      return out;
    }
    this.#chunk(chunk as unknown as ChatChunk, out);
    return out;
  }

  end(): StreamEvent[] {
    if (this.#done) return [];
    const out: StreamEvent[] = [];
    if (this.#finish !== undefined) return this.#finishStream(out, false);
    return this.#fail(out, 'The upstream stream ended before a finish reason.');
  }

  #chunk(chunk: ChatChunk, out: StreamEvent[]): void {
    if (!this.#started) {
      this.#started = true;
      this.#id = typeof chunk.id === 'string' && chunk.id !== '' ? chunk.id : makeToolCallId('call_', 'stream', chunk.created ?? 0);
      out.push({ type: 'start', id: this.#id, model: String(chunk.model ?? '') });
    }
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => (c.index ?? 0) === 0) : undefined;
    if (choice !== undefined) {
      if (isPlainObject(choice.delta)) this.#delta(choice.delta, out);
      if (choice.finish_reason != null) {
        this.#finish = choice.finish_reason;
        this.#closeAll(out);
      }
    }
    if (isPlainObject(chunk.usage)) out.push({ type: 'usage', usage: decodeChatUsage(chunk.usage) });
  }

  #delta(delta: ChatDelta, out: StreamEvent[]): void {
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') {
      this.#thinking = this.#ensure(this.#thinking, 'thinking', out);
      out.push({ type: 'thinking_delta', index: this.#thinking, text: reasoning });
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.#thinking = this.#close(this.#thinking, out);
      this.#text = this.#ensure(this.#text, 'text', out);
      out.push({ type: 'text_delta', index: this.#text, text: delta.content });
    }
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      this.#refusal = this.#ensure(this.#refusal, 'refusal', out);
      this.#sawRefusal = true;
      out.push({ type: 'text_delta', index: this.#refusal, text: delta.refusal });
    }
    if (Array.isArray(delta.tool_calls)) delta.tool_calls.forEach((tc, i) => this.#toolCall(tc, i, out));
  }

  #toolCall(tc: ChatToolCallDelta, position: number, out: StreamEvent[]): void {
    const key = typeof tc.index === 'number' ? tc.index : position;
    let slot = this.#tools.get(key);
    // A new id on a known index is a new call: some servers send every parallel call as index 0 (§E1).
    if (slot === undefined || (typeof tc.id === 'string' && tc.id !== '' && tc.id !== slot.id)) {
      this.#thinking = this.#close(this.#thinking, out);
      this.#text = this.#close(this.#text, out);
      const part = this.#nextPart++;
      const id = typeof tc.id === 'string' && tc.id !== '' ? tc.id : makeToolCallId('call_', this.#id, part);
      slot = { part, id };
      this.#tools.set(key, slot);
      this.#open.push(part);
      this.#sawTool = true;
      out.push({ type: 'part_start', index: part, part: { kind: 'tool_call', id, name: tc.function?.name ?? '' } });
    }
    const args = tc.function?.arguments;
    if (typeof args === 'string' && args !== '') out.push({ type: 'tool_args_delta', index: slot.part, json: args });
  }

  #ensure(current: number | undefined, kind: 'text' | 'thinking' | 'refusal', out: StreamEvent[]): number {
    if (current !== undefined) return current;
    const index = this.#nextPart++;
    this.#open.push(index);
    out.push({ type: 'part_start', index, part: { kind } });
    return index;
  }

  #close(current: number | undefined, out: StreamEvent[]): undefined {
    if (current !== undefined) {
      this.#open = this.#open.filter((i) => i !== current);
      out.push({ type: 'part_end', index: current });
    }
    return undefined;
  }

  #closeAll(out: StreamEvent[]): void {
    for (const index of this.#open) out.push({ type: 'part_end', index });
    this.#open = [];
    this.#text = this.#thinking = this.#refusal = undefined;
    this.#tools.clear();
  }

  #finishStream(out: StreamEvent[], sawDone: boolean): StreamEvent[] {
    if (!this.#started && sawDone) return this.#fail(out, 'The upstream stream ended without any chunk.');
    this.#closeAll(out);
    this.#done = true;
    let reason: StopReason = decodeChatFinishReason(this.#finish, this.#sawTool);
    if (reason === 'end' && this.#sawRefusal) reason = 'refusal';
    out.push({ type: 'stop', reason });
    return out;
  }

  #fail(out: StreamEvent[], message: string): StreamEvent[] {
    this.#done = true;
    out.push({ type: 'error', error: { status: 502, type: 'server', message } });
    return out;
  }
}
