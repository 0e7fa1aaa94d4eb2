/**
 * The generative-language wire (Gemini API) for FakeUpstream: `POST /v1beta/models/{m}:generateContent`,
 * `:streamGenerateContent?alt=sse` (whole response objects as `data:` frames, no `[DONE]`; without `alt=sse` one
 * JSON array sent in pieces), `:countTokens`, `GET /v1beta/models`, errors `{"error":{"code","message","status"}}`.
 * Shapes as in reference §C.
 */
import { answerNumber, textOf, type FakeAnswer, type FakeRequestInfo, type FakeWire } from './fake-upstream.ts';
import { generativeRefusal } from './request-rules.ts';

interface GenerativeBody {
  contents?: { role?: string; parts?: Record<string, unknown>[] }[];
  tools?: { functionDeclarations?: { name?: string }[] }[];
}

const FINISH = { end: 'STOP', max_tokens: 'MAX_TOKENS', tool_use: 'STOP' } as const;
const RPC: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};

const sseMode = new WeakMap<FakeRequestInfo, boolean>();

function usage(a: FakeAnswer) {
  const reasoning = a.usage.reasoning ?? 0;
  const meta: Record<string, unknown> = {
    promptTokenCount: a.usage.input + (a.usage.cacheRead ?? 0),
    candidatesTokenCount: a.usage.output - reasoning,
    totalTokenCount: a.usage.input + (a.usage.cacheRead ?? 0) + a.usage.output,
  };
  if (reasoning) meta.thoughtsTokenCount = reasoning;
  if (a.usage.cacheRead) meta.cachedContentTokenCount = a.usage.cacheRead;
  return meta;
}

function response(parts: Record<string, unknown>[], info: FakeRequestInfo, finish?: string, meta?: unknown) {
  const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
  if (finish) candidate.finishReason = finish;
  const r: Record<string, unknown> = { candidates: [candidate], modelVersion: info.model, responseId: `fakeResp${answerNumber(info)}` };
  if (meta) r.usageMetadata = meta;
  return r;
}

function frame(obj: unknown, info: FakeRequestInfo, first: boolean): string {
  if (sseMode.get(info) !== false) return `data: ${JSON.stringify(obj)}\r\n\r\n`;
  return (first ? '[' : ',\r\n') + JSON.stringify(obj);
}

export const generativeWire: FakeWire = {
  style: 'generative',

  inspect(method, path, query, raw) {
    if (method === 'GET' && path === '/v1beta/models') return { op: 'models', model: '', stream: false, tools: [], lastIsToolResult: false, lastUserText: '' };
    const m = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent|countTokens)$/.exec(path);
    if (method !== 'POST' || !m) return undefined;
    const body = (raw ?? {}) as GenerativeBody & { generateContentRequest?: GenerativeBody };
    const contents = body.contents ?? body.generateContentRequest?.contents ?? [];
    const last = contents[contents.length - 1];
    const lastUser = [...contents].reverse().find((c) => c.role !== 'model' && !(c.parts ?? []).some((p) => p.functionResponse));
    const info: FakeRequestInfo = {
      op: m[2] === 'countTokens' ? 'count' : 'generate',
      model: decodeURIComponent(m[1]),
      stream: m[2] === 'streamGenerateContent',
      tools: (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name ?? '')).filter(Boolean),
      lastIsToolResult: (last?.parts ?? []).some((p) => p.functionResponse !== undefined),
      lastUserText: textOf(lastUser?.parts),
      toolResults: contents.flatMap((c) => c.parts ?? []).filter((p) => p.functionResponse !== undefined).map((p) => JSON.stringify(p.functionResponse)),
      refusal: generativeRefusal({ contents }),
    };
    sseMode.set(info, query.get('alt') === 'sse');
    return info;
  },

  json(a, info) {
    const parts: Record<string, unknown>[] = [];
    if (a.thinking) parts.push({ text: a.thinking, thought: true });
    if (a.text) parts.push({ text: a.text });
    (a.toolCalls ?? []).forEach((c) => parts.push({ functionCall: { name: c.name, args: c.args } }));
    return response(parts, info, FINISH[a.stop ?? 'end'], usage(a));
  },

  headFrames() {
    return [];
  },

  textFrame(text, info) {
    return frame(response([{ text }], info, undefined, { promptTokenCount: 12, totalTokenCount: 12 }), info, false);
  },

  tailFrames(a, info) {
    const last = frame(response([{ text: '' }], info, FINISH[a.stop ?? 'end'], usage(a)), info, false);
    return sseMode.get(info) === false ? [last, ']'] : [last];
  },

  frames(a, info) {
    const out: string[] = [];
    if (a.thinking) out.push(frame(response([{ text: a.thinking, thought: true }], info), info, out.length === 0));
    if (a.text) {
      const mid = Math.ceil(a.text.length / 2);
      out.push(frame(response([{ text: a.text.slice(0, mid) }], info, undefined, { promptTokenCount: a.usage.input, totalTokenCount: a.usage.input }), info, out.length === 0));
      out.push(frame(response([{ text: a.text.slice(mid) }], info), info, false));
    }
    if (a.toolCalls?.length) {
      out.push(frame(response(a.toolCalls.map((c) => ({ functionCall: { name: c.name, args: c.args } })), info), info, out.length === 0));
    }
    out.push(frame(response([{ text: '' }], info, FINISH[a.stop ?? 'end'], usage(a)), info, out.length === 0));
    if (sseMode.get(info) === false) out.push(']');
    return out;
  },

  error(status, message) {
    const body: { error: Record<string, unknown> } = { error: { code: status, message, status: RPC[status] ?? 'UNKNOWN' } };
    if (status === 429) body.error.details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }];
    return body;
  },

  models(ids) {
    return {
      models: ids.map((id) => ({
        name: `models/${id}`, version: '001', displayName: id, inputTokenLimit: 1_048_576, outputTokenLimit: 65_536,
        supportedGenerationMethods: ['generateContent', 'countTokens'],
      })),
    };
  },

  count(tokens) {
    return { totalTokens: tokens };
  },
};
