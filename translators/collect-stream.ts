/**
 * Rebuilds a Reply from StreamEvents: for a JSON client served by a streaming-only upstream, for metering and
 * call-body logging of a stream, and in tests. Parts are kept in index order; tool-call arguments are parsed once
 * the stream is over.
 */
import type { Part, Reply, StreamEvent, UpstreamError, Usage } from './model.ts';
import { parseToolArguments } from './tool-arguments.ts';
import { mergeUsage } from './usage.ts';

export interface CollectedStream {
  reply: Reply;
  /** Set when the stream ended with an error event. */
  error?: UpstreamError;
  /** True when the stream ended with a `stop` event. */
  complete: boolean;
}

export class StreamCollector {
  #id = '';
  #model = '';
  #parts = new Map<number, Part>();
  #usage: Usage = { source: 'unknown' };
  #stop: Reply['stopReason'] = 'error';
  #stopSequence: string | undefined;
  #error: UpstreamError | undefined;
  #complete = false;

  push(ev: StreamEvent): void {
    switch (ev.type) {
      case 'start':
        this.#id = ev.id;
        this.#model = ev.model;
        break;
      case 'part_start': {
        const p = ev.part;
        const part: Part = p.kind === 'tool_call'
          ? { type: 'tool_call', id: p.id, name: p.name, arguments: {}, argumentsText: '' }
          : p.kind === 'thinking' ? { type: 'thinking', text: '' }
            : p.kind === 'redacted_thinking' ? { type: 'redacted_thinking', data: p.data, ...(p.origin ? { origin: p.origin } : {}) }
              : p.kind === 'refusal' ? { type: 'refusal', text: '' } : { type: 'text', text: '' };
        this.#parts.set(ev.index, part);
        break;
      }
      case 'text_delta': {
        const p = this.#parts.get(ev.index);
        if (p?.type === 'text' || p?.type === 'refusal') p.text += ev.text;
        break;
      }
      case 'thinking_delta': {
        const p = this.#parts.get(ev.index);
        if (p?.type === 'thinking') p.text += ev.text;
        break;
      }
      case 'tool_args_delta': {
        const p = this.#parts.get(ev.index);
        if (p?.type === 'tool_call') p.argumentsText += ev.json;
        break;
      }
      case 'signature': {
        const p = this.#parts.get(ev.index);
        if (p?.type === 'thinking' || p?.type === 'tool_call') {
          p.signature = (p.signature ?? '') + ev.signature;
          if (ev.origin) p.origin = ev.origin;
        }
        break;
      }
      case 'part_end':
        break;
      case 'usage':
        this.#usage = mergeUsage(this.#usage, ev.usage);
        break;
      case 'stop':
        this.#stop = ev.reason;
        this.#stopSequence = ev.stopSequence;
        this.#complete = true;
        break;
      case 'error':
        this.#error = ev.error;
        this.#stop = 'error';
        break;
    }
  }

  result(): CollectedStream {
    const parts = [...this.#parts.entries()].sort((a, b) => a[0] - b[0]).map(([, p]) => {
      if (p.type === 'tool_call') return { ...p, arguments: parseToolArguments(p.argumentsText) };
      return { ...p };
    });
    const reply: Reply = { id: this.#id, model: this.#model, parts, stopReason: this.#stop, usage: { ...this.#usage } };
    if (this.#stopSequence !== undefined) reply.stopSequence = this.#stopSequence;
    const out: CollectedStream = { reply, complete: this.#complete };
    if (this.#error !== undefined) out.error = this.#error;
    return out;
  }
}

export function collectStream(events: Iterable<StreamEvent>): CollectedStream {
  const c = new StreamCollector();
  for (const ev of events) c.push(ev);
  return c.result();
}
