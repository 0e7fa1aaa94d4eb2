// StreamEvents → generative-language stream chunks (reference §D5 "to a Gemini client").
//
// Each text or thought delta becomes one chunk `{candidates:[{content:{role:"model",parts:[…]},index:0}]}`.
// Tool-call arguments are buffered until the call's part ends, then sent whole as a `functionCall` with parsed
// `args` (Gemini clients expect whole calls). The stop becomes a last chunk with `finishReason`, `usageMetadata`
// and an empty text part (as Gemini sends it: the official SDK drops a chat turn whose chunk has no parts).
// An error becomes an `{"error":…}` chunk. The caller frames chunks as SSE `data:` lines (`alt=sse`) or as a
// JSON array (`GenerativeJsonArrayWriter`).
// Signatures reach the client only when Gemini produced them; thinking from another family is sent as thought
// text without its signature.

import type { StreamEvent, Usage } from '../model.ts';
import { parseToolArguments } from '../tool-arguments.ts';
import { toGenerativeUsage } from './convert-generative-usage.ts';
import { generativeErrorBody } from './generative-errors.ts';
import { encodeGenerativeCall } from './generative-parts.ts';
import { GENERATIVE_FINISH_FOR_STOP } from './map-generative-finish-reason.ts';
import type { GenerateContentResponse, GenerativeErrorBody, GenerativePart } from './types.ts';

export type GenerativeStreamChunk = GenerateContentResponse | GenerativeErrorBody;

export interface GenerativeStreamEncoderOptions {
  /** The model name to show (`modelVersion`) instead of the upstream's. */
  model?: string;
}

/** One chunk as an SSE frame (`alt=sse`: `data:` lines only, no event names, no `[DONE]`). */
export function frameGenerativeStreamOut(chunk: GenerativeStreamChunk): { event?: string; data: string } {
  return { data: JSON.stringify(chunk) };
}

interface OpenPart {
  kind: 'text' | 'thinking' | 'refusal' | 'tool_call' | 'redacted_thinking';
  id?: string;
  name?: string;
  args: string;
  signature?: string;
  hasText: boolean;
}

export class GenerativeStreamEncoder {
  #id = '';
  #model = '';
  #parts = new Map<number, OpenPart>();
  #usage: Usage = { source: 'unknown' };
  #done = false;
  #modelOverride: string | undefined;

  constructor(options: GenerativeStreamEncoderOptions = {}) {
    this.#modelOverride = options.model;
  }

  push(ev: StreamEvent): GenerativeStreamChunk[] {
    if (this.#done) return [];
    switch (ev.type) {
      case 'start':
        this.#id = ev.id;
        this.#model = this.#modelOverride ?? ev.model;
        return [];
      case 'part_start': {
        const p = ev.part;
        this.#parts.set(ev.index, p.kind === 'tool_call' ? { kind: p.kind, id: p.id, name: p.name, args: '', hasText: false } : { kind: p.kind, args: '', hasText: false });
        return [];
      }
      case 'text_delta':
        return ev.text === '' ? [] : [this.#chunk([{ text: ev.text }])];
      case 'thinking_delta': {
        if (ev.text === '') return [];
        const p = this.#parts.get(ev.index);
        if (p !== undefined) p.hasText = true;
        return [this.#chunk([{ text: ev.text, thought: true }])];
      }
      case 'tool_args_delta': {
        const p = this.#parts.get(ev.index);
        if (p !== undefined) p.args += ev.json;
        return [];
      }
      case 'signature':
        return this.#signature(ev.index, ev.signature, ev.origin);
      case 'part_end':
        return this.#end(ev.index);
      case 'usage':
        this.#usage = ev.usage;
        return [];
      case 'stop': {
        this.#done = true;
        const chunk = this.#chunk([{ text: '' }]);
        if (chunk.candidates !== undefined) chunk.candidates[0].finishReason = GENERATIVE_FINISH_FOR_STOP[ev.reason];
        const usage = toGenerativeUsage(this.#usage);
        if (usage !== undefined) chunk.usageMetadata = usage;
        return [chunk];
      }
      case 'error':
        this.#done = true;
        return [generativeErrorBody(ev.error)];
    }
  }

  /** The upstream side ended; if no terminal event came, the client gets an error chunk rather than a clean end. */
  end(): GenerativeStreamChunk[] {
    if (this.#done) return [];
    this.#done = true;
    return [generativeErrorBody({ status: 502, type: 'server', message: 'The upstream stream ended before the answer was finished.' })];
  }

  #signature(index: number, signature: string, origin: string | undefined): GenerativeStreamChunk[] {
    const p = this.#parts.get(index);
    if (p === undefined || origin !== 'generative') return [];
    if (p.kind === 'tool_call') {
      p.signature = signature;
      return [];
    }
    // A thought keeps `thought:true`; an empty thinking part stood for a signature on a text part.
    const part: GenerativePart = p.kind === 'thinking' && p.hasText
      ? { text: '', thought: true, thoughtSignature: signature }
      : { text: '', thoughtSignature: signature };
    return [this.#chunk([part])];
  }

  #end(index: number): GenerativeStreamChunk[] {
    const p = this.#parts.get(index);
    this.#parts.delete(index);
    if (p?.kind !== 'tool_call') return [];
    const args = parseToolArguments(p.args);
    const call = encodeGenerativeCall({
      type: 'tool_call', id: p.id ?? '', name: p.name ?? '', arguments: args, argumentsText: p.args,
      ...(p.signature !== undefined ? { signature: p.signature, origin: 'generative' as const } : {}),
    });
    return [this.#chunk([call])];
  }

  #chunk(parts: GenerativePart[]): GenerateContentResponse {
    const chunk: GenerateContentResponse = { candidates: [{ content: { role: 'model', parts }, index: 0 }] };
    if (this.#model !== '') chunk.modelVersion = this.#model;
    if (this.#id !== '') chunk.responseId = this.#id;
    return chunk;
  }
}
