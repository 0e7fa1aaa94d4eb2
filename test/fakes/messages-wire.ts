/**
 * The messages wire (Anthropic) for FakeUpstream: `POST /v1/messages` (JSON, or `event:`+`data:` frames from
 * `message_start` to `message_stop`), `POST /v1/messages/count_tokens`, `GET /v1/models`, errors
 * `{"type":"error","error":{"type","message"},"request_id"}`. Shapes as in reference §B.
 */
import { answerNumber, sse, textOf, type FakeAnswer, type FakeRequestInfo, type FakeWire } from './fake-upstream.ts';
import { messagesRefusal } from './request-rules.ts';

interface MessagesBody {
  model?: string;
  messages?: { role: string; content?: unknown }[];
  tools?: { name?: string }[];
  stream?: boolean;
}

const STOP = { end: 'end_turn', max_tokens: 'max_tokens', tool_use: 'tool_use' } as const;

function usage(a: FakeAnswer) {
  return {
    input_tokens: a.usage.input,
    cache_creation_input_tokens: a.usage.cacheWrite ?? 0,
    cache_read_input_tokens: a.usage.cacheRead ?? 0,
    output_tokens: a.usage.output,
    service_tier: 'standard',
  };
}

function blocks(a: FakeAnswer): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (a.thinking) out.push({ type: 'thinking', thinking: a.thinking, signature: 'EqQBCkYIBxgCKkBfakeSignature==' });
  if (a.text) out.push({ type: 'text', text: a.text });
  (a.toolCalls ?? []).forEach((c, i) => out.push({ type: 'tool_use', id: c.id?.replace(/^call_/, 'toolu_') ?? `toolu_${i}`, name: c.name, input: c.args }));
  return out;
}

function isToolResult(content: unknown): boolean {
  return Array.isArray(content) && content.some((b) => (b as { type?: string })?.type === 'tool_result');
}

export const messagesWire: FakeWire = {
  style: 'messages',

  inspect(method, path, _query, raw) {
    if (method === 'GET' && path === '/v1/models') return { op: 'models', model: '', stream: false, tools: [], lastIsToolResult: false, lastUserText: '' };
    if (method !== 'POST' || !path.startsWith('/v1/messages')) return undefined;
    const body = (raw ?? {}) as MessagesBody;
    const msgs = body.messages ?? [];
    const last = msgs[msgs.length - 1];
    const lastUser = [...msgs].reverse().find((m) => m.role === 'user' && !isToolResult(m.content));
    const op = path === '/v1/messages/count_tokens' ? 'count' : 'generate';
    return {
      op,
      model: body.model ?? '',
      stream: body.stream === true,
      tools: (body.tools ?? []).map((t) => t.name ?? '').filter(Boolean),
      lastIsToolResult: last?.role === 'user' && isToolResult(last.content),
      lastUserText: textOf(lastUser?.content),
      toolResults: msgs.flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? m.content : []))
        .filter((b) => (b as { type?: string })?.type === 'tool_result')
        .map((b) => textOf((b as { content?: unknown }).content)),
      refusal: messagesRefusal(body as Record<string, unknown>, op),
    };
  },

  json(a, info) {
    return {
      id: `msg_fake${answerNumber(info)}`, type: 'message', role: 'assistant', model: info.model, content: blocks(a),
      stop_reason: STOP[a.stop ?? 'end'], stop_sequence: null, usage: usage(a),
    };
  },

  headFrames(info) {
    const start = { id: `msg_fake${answerNumber(info)}`, type: 'message', role: 'assistant', model: info.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } };
    return [
      sse({ type: 'message_start', message: start }, 'message_start'),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
    ];
  },

  textFrame(text) {
    return sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta');
  },

  tailFrames(a) {
    return [
      sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
      sse({ type: 'message_delta', delta: { stop_reason: STOP[a.stop ?? 'end'], stop_sequence: null }, usage: { output_tokens: a.usage.output } }, 'message_delta'),
      sse({ type: 'message_stop' }, 'message_stop'),
    ];
  },

  frames(a, info) {
    const start = { id: `msg_fake${answerNumber(info)}`, type: 'message', role: 'assistant', model: info.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage(a), output_tokens: 1 } };
    const out = [sse({ type: 'message_start', message: start }, 'message_start'), sse({ type: 'ping' }, 'ping')];
    blocks(a).forEach((b, index) => {
      if (b.type === 'thinking') {
        out.push(sse({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }, 'content_block_start'));
        out.push(sse({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: b.thinking } }, 'content_block_delta'));
        out.push(sse({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } }, 'content_block_delta'));
      } else if (b.type === 'text') {
        const text = b.text as string;
        const mid = Math.ceil(text.length / 2);
        out.push(sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start'));
        out.push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(0, mid) } }, 'content_block_delta'));
        out.push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(mid) } }, 'content_block_delta'));
      } else {
        const json = JSON.stringify(b.input);
        out.push(sse({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }, 'content_block_start'));
        out.push(sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, 4) } }, 'content_block_delta'));
        out.push(sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(4) } }, 'content_block_delta'));
      }
      out.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    });
    out.push(sse({ type: 'message_delta', delta: { stop_reason: STOP[a.stop ?? 'end'], stop_sequence: null }, usage: usage(a) }, 'message_delta'));
    out.push(sse({ type: 'message_stop' }, 'message_stop'));
    return out;
  },

  error(status, message) {
    const TYPES: Record<number, string> = {
      400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
      413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error', 504: 'timeout_error',
    };
    return { type: 'error', error: { type: TYPES[status] ?? 'api_error', message }, request_id: 'req_fake1' };
  },

  models(ids) {
    const data = ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' }));
    return { data, has_more: false, first_id: ids[0] ?? null, last_id: ids[ids.length - 1] ?? null };
  },

  count(tokens) {
    return { input_tokens: tokens };
  },
};
