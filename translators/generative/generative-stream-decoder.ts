// Generative-language stream (`:streamGenerateContent?alt=sse`) → StreamEvents.
//
// Wire: every `data:` frame is a whole GenerateContentResponse whose parts are increments; there is no `[DONE]`.
// Text and thought parts continue across chunks (one open text or thinking part at a time); a `functionCall`
// arrives whole and becomes a complete tool-call part (start, one argument delta, signature, end). A chunk may
// carry text and calls together. The chunk with `finishReason` (often with an empty text part, sometimes with no
// parts at all) ends the answer: usage (cumulative, last complete value wins) then `stop`. A `{"error":…}` frame
// ends the stream with `error`; so does a stream that closes without a finish reason (reference §C, §E10, §E11).
// Vertex-only partial arguments (`partialArgs`/`willContinue`) and generated images are not translated.
// @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent

import type { SseMessage, StopReason, StreamEvent, UpstreamError, Usage } from '../model.ts';
import { convertGenerativeUsage } from './convert-generative-usage.ts';
import { generativeCallId, stableHash } from './generative-call-id.ts';
import { decodeGenerativeError } from './generative-errors.ts';
import { GENERATIVE_BLOCK_REASONS, mapGenerativeFinishReason } from './map-generative-finish-reason.ts';
import { normalizeGenerativeKeys } from './normalize-generative-keys.ts';
import type { GenerateContentResponse, GenerativeBlockReason, GenerativePart } from './types.ts';

export class GenerativeStreamDecoder {
  #started = false;
  #done = false;
  #next = 0;
  #open: { index: number; kind: 'text' | 'thinking' } | undefined;
  #calls = 0;
  #content = false;
  #usage: Usage = { source: 'unknown' };
  #seed = '';

  /** Feeds one parsed SSE message; returns the events it produces. */
  push(ev: SseMessage): StreamEvent[] {
    if (this.#done) return [];
    const data = ev.data.trim();
    if (data === '' || data === '[DONE]') return [];
    let json: unknown;
    try {
      json = normalizeGenerativeKeys(JSON.parse(data));
    } catch {
      return this.#fail({ status: 502, type: 'server', message: 'The upstream sent a stream chunk that is not JSON.' });
    }
    if (typeof json !== 'object' || json === null) return [];
    if ('error' in json) return this.#fail(decodeGenerativeError(0, json));
    return this.#chunk(json as GenerateContentResponse);
  }

  /** The upstream closed the stream: without a finish reason that is an error, never a clean stop. */
  end(): StreamEvent[] {
    if (this.#done) return [];
    return this.#fail({ status: 502, type: 'server', message: 'The upstream stream ended before the answer was finished.' });
  }

  #fail(error: UpstreamError): StreamEvent[] {
    this.#done = true;
    const out: StreamEvent[] = [];
    if (this.#usage.source !== 'unknown') out.push({ type: 'usage', usage: this.#usage });
    out.push({ type: 'error', error });
    return out;
  }

  #chunk(r: GenerateContentResponse): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      this.#seed = r.responseId ?? stableHash(JSON.stringify(r));
      out.push({ type: 'start', id: r.responseId ?? `gen-${this.#seed}`, model: r.modelVersion ?? '' });
    }
    const usage = convertGenerativeUsage(r.usageMetadata);
    if (usage.source !== 'unknown') this.#usage = usage;
    const candidate = r.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) this.#part(part, out);
    let reason: StopReason | undefined;
    if (candidate?.finishReason !== undefined) {
      reason = mapGenerativeFinishReason(candidate.finishReason, this.#calls > 0, !this.#content);
    } else if (candidate === undefined && r.promptFeedback?.blockReason !== undefined) {
      reason = GENERATIVE_BLOCK_REASONS[r.promptFeedback.blockReason as GenerativeBlockReason] ?? 'content_filter';
    }
    if (reason !== undefined) {
      this.#close(out);
      if (this.#usage.source !== 'unknown') out.push({ type: 'usage', usage: this.#usage });
      out.push({ type: 'stop', reason });
      this.#done = true;
    }
    return out;
  }

  #part(p: GenerativePart, out: StreamEvent[]): void {
    const sig = typeof p.thoughtSignature === 'string' && p.thoughtSignature !== '' ? p.thoughtSignature : undefined;
    if (p.functionCall !== undefined) {
      this.#close(out);
      const index = this.#next++;
      const id = p.functionCall.id ?? generativeCallId(this.#seed, this.#calls);
      this.#calls++;
      this.#content = true;
      out.push({ type: 'part_start', index, part: { kind: 'tool_call', id, name: p.functionCall.name } });
      out.push({ type: 'tool_args_delta', index, json: JSON.stringify(p.functionCall.args ?? {}) });
      if (sig !== undefined) out.push({ type: 'signature', index, signature: sig, origin: 'generative' });
      out.push({ type: 'part_end', index });
      return;
    }
    if (typeof p.text !== 'string') return;
    const kind = p.thought === true ? 'thinking' : 'text';
    if (p.text !== '') {
      const index = this.#ensure(kind, out);
      this.#content = true;
      out.push(kind === 'text' ? { type: 'text_delta', index, text: p.text } : { type: 'thinking_delta', index, text: p.text });
    }
    if (sig === undefined) return;
    if (kind === 'thinking') {
      out.push({ type: 'signature', index: this.#ensure('thinking', out), signature: sig, origin: 'generative' });
      return;
    }
    // A signature on a plain text part is kept as an empty thinking part after the text (see generative-parts.ts).
    this.#close(out);
    const index = this.#next++;
    out.push({ type: 'part_start', index, part: { kind: 'thinking' } });
    out.push({ type: 'signature', index, signature: sig, origin: 'generative' });
    out.push({ type: 'part_end', index });
  }

  #ensure(kind: 'text' | 'thinking', out: StreamEvent[]): number {
    if (this.#open?.kind === kind) return this.#open.index;
    this.#close(out);
    const index = this.#next++;
    this.#open = { index, kind };
    out.push({ type: 'part_start', index, part: { kind } });
    return index;
  }

  #close(out: StreamEvent[]): void {
    if (this.#open === undefined) return;
    out.push({ type: 'part_end', index: this.#open.index });
    this.#open = undefined;
  }
}
