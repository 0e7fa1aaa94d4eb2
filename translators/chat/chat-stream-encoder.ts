/**
 * StreamEvents → chat-completions chunks for a chat client (reference §A "Streaming", §D5).
 *
 * Output: chunk objects (serialise each as `data: <json>`), an `{"error":…}` object for an in-stream error (the
 * stream then closes without `[DONE]`, which openai-node turns into an exception), and the string `[DONE]` last.
 * Tool calls get their own chat index counted from 0 in order of appearance, so parallel calls never share one
 * (§E1). Thinking is sent as the non-standard `delta.reasoning_content`. The usage chunk (`choices:[]`) is sent
 * only when the client asked with `stream_options.include_usage` (§E7).
 */
import type { StopReason, StreamEvent, Usage } from '../model.ts';
import { chatErrorBody } from './chat-errors.ts';
import { encodeChatFinishReason } from './chat-stop-reason.ts';
import { encodeChatUsage } from './chat-usage.ts';
import type { ChatChunk, ChatDelta, ChatFinishReason, ChatStreamOut } from './types.ts';

export interface ChatStreamEncoderOptions {
  /** The client sent `stream_options.include_usage: true`. */
  includeUsage?: boolean;
  /** The model name to show instead of the upstream's (e.g. the alias the client asked for). */
  model?: string;
  /** Unix seconds for `created` (defaults to now). */
  created?: number;
}

type PartKind = 'text' | 'tool_call' | 'thinking' | 'refusal' | 'other';

/**
 * A text chunk that carries its JSON, written when it is made: a stream is mostly text chunks that differ only in
 * their text, so their JSON is a fixed prefix and suffix around the text (byte for byte what JSON.stringify writes;
 * a test holds the two together). To every other reader it is an ordinary chunk (the JSON is a private field).
 */
class TextChunk implements ChatChunk {
  id: string;
  object = 'chat.completion.chunk' as const;
  created: number;
  model: string;
  choices: ChatChunk['choices'];
  usage?: null;
  readonly #json: string;

  constructor(id: string, created: number, model: string, text: string, withUsage: boolean, json: string) {
    this.id = id;
    this.created = created;
    this.model = model;
    this.choices = [{ index: 0, delta: { content: text }, finish_reason: null }];
    if (withUsage) this.usage = null;
    this.#json = json;
  }

  get json(): string {
    return this.#json;
  }
}

export class ChatStreamEncoder {
  #includeUsage: boolean;
  #model: string | undefined;
  #created: number;
  #id = 'chatcmpl-gateway';
  #started = false;
  #finished = false;
  #kinds = new Map<number, PartKind>();
  #toolIndex = new Map<number, number>();
  /** Tool-call parts that have not received any argument text yet (chat clients parse "" as invalid JSON). */
  #noArgs = new Set<number>();
  #usage: Usage | undefined;
  /** JSON around the text of a text chunk, for the current id and model. */
  #textJson: { id: string; model: string; prefix: string; suffix: string } | undefined;

  constructor(options: ChatStreamEncoderOptions = {}) {
    this.#includeUsage = options.includeUsage === true;
    this.#model = options.model;
    this.#created = options.created ?? Math.floor(Date.now() / 1000);
  }

  push(ev: StreamEvent): ChatStreamOut[] {
    if (this.#finished) return [];
    const out: ChatStreamOut[] = [];
    if (ev.type === 'start') {
      this.#id = ev.id;
      this.#model ??= ev.model;
    }
    if (!this.#started && ev.type !== 'error') {
      this.#started = true;
      out.push(this.#chunk({ role: 'assistant', content: '' }));
    }
    switch (ev.type) {
      case 'start':
      case 'signature':
        break;
      case 'part_end':
        this.#closeArgs(ev.index, out);
        break;
      case 'part_start': {
        this.#kinds.set(ev.index, ev.part.kind === 'redacted_thinking' ? 'other' : ev.part.kind);
        if (ev.part.kind === 'tool_call') {
          const k = this.#toolIndex.size;
          this.#toolIndex.set(ev.index, k);
          this.#noArgs.add(ev.index);
          out.push(this.#chunk({ tool_calls: [{ index: k, id: ev.part.id, type: 'function', function: { name: ev.part.name, arguments: '' } }] }));
        }
        break;
      }
      case 'text_delta':
        if (ev.text === '') break;
        out.push(this.#kinds.get(ev.index) === 'refusal' ? this.#chunk({ refusal: ev.text }) : this.#textChunk(ev.text));
        break;
      case 'thinking_delta':
        if (ev.text !== '') out.push(this.#chunk({ reasoning_content: ev.text }));
        break;
      case 'tool_args_delta': {
        const k = this.#toolIndex.get(ev.index);
        if (k !== undefined && ev.json !== '') {
          this.#noArgs.delete(ev.index);
          out.push(this.#chunk({ tool_calls: [{ index: k, function: { arguments: ev.json } }] }));
        }
        break;
      }
      case 'usage':
        this.#usage = ev.usage;
        break;
      case 'stop':
        this.#stop(ev.reason, out);
        break;
      case 'error':
        this.#finished = true;
        out.push(chatErrorBody(ev.error));
        break;
    }
    return out;
  }

  /** Called when the event source is exhausted; a stream that never stopped ends with an error object. */
  end(): ChatStreamOut[] {
    if (this.#finished) return [];
    this.#finished = true;
    return [chatErrorBody({ status: 502, type: 'server', message: 'The upstream stream ended unexpectedly.' })];
  }

  /** A call that ends without argument text had no arguments (messages `partial_json:""`): send `{}`. */
  #closeArgs(index: number, out: ChatStreamOut[]): void {
    if (!this.#noArgs.delete(index)) return;
    const k = this.#toolIndex.get(index);
    if (k !== undefined) out.push(this.#chunk({ tool_calls: [{ index: k, function: { arguments: '{}' } }] }));
  }

  #stop(reason: StopReason, out: ChatStreamOut[]): void {
    for (const index of [...this.#noArgs]) this.#closeArgs(index, out);
    this.#finished = true;
    let finish: ChatFinishReason = encodeChatFinishReason(reason);
    if (finish === 'stop' && this.#toolIndex.size > 0 && reason !== 'error') finish = 'tool_calls';
    out.push(this.#chunk({}, finish));
    if (this.#includeUsage) {
      out.push({
        id: this.#id,
        object: 'chat.completion.chunk',
        created: this.#created,
        model: this.#model ?? '',
        choices: [],
        usage: encodeChatUsage(this.#usage ?? { source: 'unknown' }),
      });
    }
    out.push('[DONE]');
  }

  #textChunk(text: string): ChatChunk {
    const id = this.#id;
    const model = this.#model ?? '';
    let j = this.#textJson;
    if (j === undefined || j.id !== id || j.model !== model) {
      j = this.#textJson = {
        id, model,
        prefix: `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${JSON.stringify(this.#created)},"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":{"content":`,
        suffix: `},"finish_reason":null}]${this.#includeUsage ? ',"usage":null' : ''}}`,
      };
    }
    return new TextChunk(id, this.#created, model, text, this.#includeUsage, j.prefix + JSON.stringify(text) + j.suffix);
  }

  #chunk(delta: ChatDelta, finish: ChatFinishReason | null = null): ChatChunk {
    const chunk: ChatChunk = {
      id: this.#id,
      object: 'chat.completion.chunk',
      created: this.#created,
      model: this.#model ?? '',
      choices: [{ index: 0, delta, finish_reason: finish }],
    };
    if (this.#includeUsage) chunk.usage = null;
    return chunk;
  }
}

/** How a chat stream output is framed as SSE. */
export function frameChatStreamOut(out: ChatStreamOut): { event?: string; data: string } {
  return { data: out === '[DONE]' ? '[DONE]' : (out instanceof TextChunk ? out.json : JSON.stringify(out)) };
}
