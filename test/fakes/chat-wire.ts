/**
 * The chat-completions wire (OpenAI and compatible servers) for FakeUpstream: `POST …/chat/completions` (JSON or
 * `data:` chunks ending in `[DONE]`, usage chunk only with `stream_options.include_usage`), `GET …/models`,
 * errors `{"error":{"message","type","param","code"}}`. Shapes as in reference §A.
 */
import { answerNumber, sse, textOf, type FakeAnswer, type FakeRequestInfo, type FakeWire } from './fake-upstream.ts';
import { chatRefusal } from './request-rules.ts';

interface ChatBody {
  model?: string;
  messages?: { role: string; content?: unknown }[];
  tools?: { function?: { name?: string } }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

const CREATED = 1_760_000_000;

function usage(a: FakeAnswer) {
  return {
    prompt_tokens: a.usage.input + (a.usage.cacheRead ?? 0),
    completion_tokens: a.usage.output,
    total_tokens: a.usage.input + (a.usage.cacheRead ?? 0) + a.usage.output,
    prompt_tokens_details: { cached_tokens: a.usage.cacheRead ?? 0 },
    completion_tokens_details: { reasoning_tokens: a.usage.reasoning ?? 0 },
  };
}

const FINISH = { end: 'stop', max_tokens: 'length', tool_use: 'tool_calls' } as const;

export const chatWire: FakeWire & { includeUsage: WeakMap<FakeRequestInfo, boolean> } = {
  style: 'chat',
  includeUsage: new WeakMap(),

  inspect(method, path, _query, raw) {
    if (method === 'GET' && path.endsWith('/models')) return { op: 'models', model: '', stream: false, tools: [], lastIsToolResult: false, lastUserText: '' };
    if (method !== 'POST' || !path.endsWith('/chat/completions')) return undefined;
    const body = (raw ?? {}) as ChatBody;
    const msgs = body.messages ?? [];
    const last = msgs[msgs.length - 1];
    const lastUser = [...msgs].reverse().find((m) => m.role === 'user');
    const info: FakeRequestInfo = {
      op: 'generate',
      model: body.model ?? '',
      stream: body.stream === true,
      tools: (body.tools ?? []).map((t) => t.function?.name ?? '').filter(Boolean),
      lastIsToolResult: last?.role === 'tool',
      lastUserText: textOf(lastUser?.content),
      toolResults: msgs.filter((m) => m.role === 'tool').map((m) => textOf(m.content)),
      refusal: chatRefusal(body as Record<string, unknown>),
    };
    this.includeUsage.set(info, body.stream_options?.include_usage === true);
    return info;
  },

  json(a, info) {
    const message: Record<string, unknown> = { role: 'assistant', content: a.text ?? null, refusal: null };
    if (a.toolCalls?.length) {
      message.tool_calls = a.toolCalls.map((c, i) => ({ id: c.id ?? `call_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
    }
    return {
      id: `chatcmpl-fake${answerNumber(info)}`, object: 'chat.completion', created: CREATED, model: info.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH[a.stop ?? 'end'] }],
      usage: usage(a), service_tier: 'default', system_fingerprint: 'fp_fake',
    };
  },

  headFrames(info) {
    return [sse(chunk(info, { role: 'assistant', content: '', refusal: null }, null, this.includeUsage.get(info)))];
  },

  textFrame(text, info) {
    return sse(chunk(info, { content: text }, null, this.includeUsage.get(info)));
  },

  tailFrames(a, info) {
    const withUsage = this.includeUsage.get(info) === true;
    const out = [sse(chunk(info, {}, FINISH[a.stop ?? 'end'], withUsage))];
    if (withUsage) out.push(sse({ id: `chatcmpl-fake${answerNumber(info)}`, object: 'chat.completion.chunk', created: CREATED, model: info.model, choices: [], usage: usage(a) }));
    out.push(sse('[DONE]'));
    return out;
  },

  frames(a, info) {
    const out = this.headFrames(info);
    if (a.text) {
      const mid = Math.ceil(a.text.length / 2);
      out.push(this.textFrame(a.text.slice(0, mid), info), this.textFrame(a.text.slice(mid), info));
    }
    (a.toolCalls ?? []).forEach((c, i) => {
      const args = JSON.stringify(c.args);
      const iu = this.includeUsage.get(info);
      out.push(sse(chunk(info, { tool_calls: [{ index: i, id: c.id ?? `call_${i}`, type: 'function', function: { name: c.name, arguments: '' } }] }, null, iu)));
      out.push(sse(chunk(info, { tool_calls: [{ index: i, function: { arguments: args.slice(0, 5) } }] }, null, iu)));
      out.push(sse(chunk(info, { tool_calls: [{ index: i, function: { arguments: args.slice(5) } }] }, null, iu)));
    });
    return [...out, ...this.tailFrames(a, info)];
  },

  error(status, message) {
    const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : status === 401 ? 'invalid_request_error' : 'invalid_request_error';
    const code = status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : status === 404 ? 'model_not_found' : null;
    return { error: { message, type, param: null, code } };
  },

  models(ids) {
    return { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'fake' })) };
  },

  count(tokens) {
    return { error: { message: `count_tokens is not part of this API (${tokens}).`, type: 'invalid_request_error', param: null, code: null } };
  },
};

function chunk(info: FakeRequestInfo, delta: Record<string, unknown>, finish: string | null, includeUsage?: boolean) {
  const c: Record<string, unknown> = {
    id: `chatcmpl-fake${answerNumber(info)}`, object: 'chat.completion.chunk', created: CREATED, model: info.model, system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
  if (includeUsage) c.usage = null;
  return c;
}
