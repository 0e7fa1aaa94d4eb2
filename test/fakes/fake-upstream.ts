/**
 * A local fake provider API for tests and benchmarks: one HTTP server on 127.0.0.1 that speaks one wire style
 * (chat-completions, messages, generative-language or responses; see the `*-wire.ts` files beside this one).
 *
 * By default it answers like the real API: a text answer that echoes the last user text, or a tool call when the
 * request offers tools and the last turn is not a tool result ("parallel" in the user text asks for two calls),
 * streamed when the request asks for a stream, with usage figures. Tests script the next answers with `script()`:
 * an HTTP error (with retry-after), a stream cut short, a malformed SSE frame, a slow stream, a hang, a recorded
 * stream from test/fixtures replayed byte for byte, or a custom answer; a `policy` decides the unscripted answers
 * from the request (a scripted model that drives an agent through a task). Every call is recorded (`calls`), including whether the client went away before the answer ended.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

export interface FakeUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

export interface FakeToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/** What the fake model "says". */
export interface FakeAnswer {
  text?: string;
  thinking?: string;
  toolCalls?: FakeToolCall[];
  stop?: 'end' | 'max_tokens' | 'tool_use';
  usage: FakeUsage;
}

export type FakeScript =
  /** Answer with this status and the style's error body (or `body` verbatim). */
  | { error: number; message?: string; retryAfter?: number; body?: unknown }
  /** A normal answer with these fields overriding the default. */
  | { answer: Partial<FakeAnswer> }
  /** Stream: send this many frames, then destroy the connection. */
  | { cutAfter: number }
  /**
   * The head (200, the full content-length for a JSON answer) and the first half of the body, then the connection
   * is destroyed (`close`) or left silent (`stall`, for body timeouts). A stream gets its head alone.
   */
  | { cutBody: 'close' | 'stall' }
  /** Stream: send one good frame, then a frame that is not JSON, then close. */
  | { malformed: true }
  /** Stream: `events` text frames, `delayMs` apart (to test client disconnects). */
  | { slow: { delayMs: number; events: number } }
  /** Never answer (to test timeouts); the socket stays open until the client gives up. */
  | { hang: true }
  /** Stream a recorded upstream stream byte for byte: a file under test/fixtures, e.g. `messages/tool-use.sse.txt`. */
  | { replay: string };

export interface FakeCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The request body as it arrived (for byte-for-byte comparisons). */
  raw: string;
  /** The client closed the connection before the answer was complete. */
  aborted: boolean;
}

/** What a request asks, as the style's wire reader sees it. */
export interface FakeRequestInfo {
  op: 'generate' | 'count' | 'models';
  model: string;
  stream: boolean;
  tools: string[];
  lastIsToolResult: boolean;
  lastUserText: string;
  /** The text of every tool result in the conversation, oldest first (JSON for structured results). */
  toolResults?: string[];
  /** Why the real API would refuse this request with 400 (request-rules.ts); undefined when it is acceptable. */
  refusal?: string;
}

/** Decides an unscripted answer from the request (a scripted "model" for a multi-step task); undefined: the default. */
export type FakePolicy = (info: FakeRequestInfo, call: FakeCall) => Partial<FakeAnswer> | undefined;

/** One wire style: reading requests and writing answers, errors and lists exactly as the real API does. */
export interface FakeWire {
  style: 'chat' | 'messages' | 'generative' | 'responses';
  inspect(method: string, path: string, query: URLSearchParams, body: unknown): FakeRequestInfo | undefined;
  json(answer: FakeAnswer, info: FakeRequestInfo): unknown;
  /** The whole stream as SSE frames (each ending in a blank line). */
  frames(answer: FakeAnswer, info: FakeRequestInfo): string[];
  /** For `slow` streams: the frames that open a stream, one text increment, and the frames that end it. */
  headFrames(info: FakeRequestInfo): string[];
  textFrame(text: string, info: FakeRequestInfo): string;
  tailFrames(answer: FakeAnswer, info: FakeRequestInfo): string[];
  error(status: number, message: string): unknown;
  models(ids: string[]): unknown;
  count(tokens: number): unknown;
}

export function defaultAnswer(info: FakeRequestInfo): FakeAnswer {
  const usage: FakeUsage = { input: 12 + Math.ceil(info.lastUserText.length / 4), output: 7 };
  if (info.tools.length > 0 && !info.lastIsToolResult) {
    const calls: FakeToolCall[] = [{ id: 'call_fake_1', name: info.tools[0], args: { city: 'Oslo' } }];
    if (/parallel/i.test(info.lastUserText)) calls.push({ id: 'call_fake_2', name: info.tools[0], args: { city: 'Paris' } });
    return { toolCalls: calls, stop: 'tool_use', usage };
  }
  return { text: `Echo: ${info.lastUserText}`, stop: 'end', usage };
}

export class FakeUpstream {
  readonly wire: FakeWire;
  readonly calls: FakeCall[] = [];
  /** Model ids listed by the models endpoint. */
  models: string[];
  /** Consulted for each generate request that no script answers. */
  policy: FakePolicy | undefined;
  url = '';
  #server: Server;
  #scripts: FakeScript[] = [];
  #sockets = new Set<import('node:net').Socket>();

  constructor(wire: FakeWire, models: string[] = []) {
    this.wire = wire;
    this.models = models;
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.keepAliveTimeout = 30_000;
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  /** Queues answers for the next requests (first in, first used); unscripted requests get the default. */
  script(...scripts: FakeScript[]): this {
    this.#scripts.push(...scripts);
    return this;
  }

  reset(): void {
    this.#scripts = [];
    this.calls.length = 0;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      return this.#send(res, 400, this.wire.error(400, 'The body is not JSON.'));
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const call: FakeCall = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, raw, aborted: false };
    this.calls.push(call);
    res.on('close', () => {
      if (!res.writableFinished) call.aborted = true;
    });
    const info = this.wire.inspect(call.method, url.pathname, url.searchParams, body);
    if (info === undefined) return this.#send(res, 404, this.wire.error(404, `No route ${call.method} ${url.pathname}.`));
    if (info.op === 'models') return this.#send(res, 200, this.wire.models(this.models));
    if (info.refusal !== undefined) return this.#send(res, 400, this.wire.error(400, info.refusal));
    const script = info.op === 'generate' ? this.#scripts.shift() : undefined;
    if (info.op === 'count') return this.#send(res, 200, this.wire.count(12 + Math.ceil(info.lastUserText.length / 4)));
    if (script && 'hang' in script) return;
    if (script && 'error' in script) {
      const headers: Record<string, string> = script.retryAfter !== undefined ? { 'retry-after': String(script.retryAfter) } : {};
      return this.#send(res, script.error, script.body ?? this.wire.error(script.error, script.message ?? `Fake upstream error ${script.error}.`), headers);
    }
    const chosen = script ? ('answer' in script ? script.answer : {}) : this.policy?.(info, call);
    const answer: FakeAnswer = { ...defaultAnswer(info), ...chosen };
    if (script && 'cutBody' in script) {
      const text = info.stream ? '' : JSON.stringify(this.wire.json(answer, info));
      res.writeHead(200, info.stream ? { 'content-type': 'text/event-stream' } : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.flushHeaders();
      if (text !== '') res.write(text.slice(0, Math.floor(text.length / 2)));
      if (script.cutBody === 'close') setTimeout(() => res.destroy(), 20);
      return;
    }
    if (!info.stream) return this.#send(res, 200, this.wire.json(answer, info));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (script && 'slow' in script) return this.#slow(res, info, script.slow);
    if (script && 'replay' in script) {
      // In two pieces, so that readers meet an event split across chunks as they do on a real network.
      const bytes = readFileSync(new URL(`../fixtures/${script.replay}`, import.meta.url));
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
      setTimeout(() => res.end(bytes.subarray(Math.floor(bytes.length / 2))), 5);
      return;
    }
    const frames = this.wire.frames(answer, info);
    if (script && 'malformed' in script) {
      res.write(frames[0]);
      res.end('data: {"this is": not json\n\n');
      return;
    }
    if (script && 'cutAfter' in script) {
      for (const f of frames.slice(0, script.cutAfter)) res.write(f);
      setTimeout(() => res.destroy(), 20);
      return;
    }
    res.end(frames.join(''));
  }

  async #slow(res: ServerResponse, info: FakeRequestInfo, opts: { delayMs: number; events: number }): Promise<void> {
    res.write(this.wire.headFrames(info).join(''));
    for (let i = 0; i < opts.events; i++) {
      if (res.destroyed) return;
      res.write(this.wire.textFrame(`word${i} `, info));
      await new Promise((r) => setTimeout(r, opts.delayMs));
    }
    const tail = this.wire.tailFrames({ stop: 'end', usage: { input: 12, output: opts.events } }, info);
    if (!res.destroyed) res.end(tail.join(''));
  }

  #send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }
}

const answerNumbers = new WeakMap<FakeRequestInfo, number>();
let answers = 0;

/**
 * A number of its own for each answer, for its id: real APIs give every response its own id, and clients rely on it
 * (Claude Code merges assistant messages of one id; the gateway derives Gemini call ids from the responseId).
 */
export function answerNumber(info: FakeRequestInfo): number {
  let n = answerNumbers.get(info);
  if (n === undefined) answerNumbers.set(info, (n = ++answers));
  return n;
}

/** Frames one SSE event. */
export function sse(data: unknown, event?: string): string {
  return `${event !== undefined ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** The text of the last user turn, whatever the shape of its content. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
    .join('');
}
