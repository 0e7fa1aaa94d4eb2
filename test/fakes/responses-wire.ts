/**
 * The responses wire (OpenAI responses API and the ChatGPT-plan backend) for FakeUpstream: `POST …/responses`
 * (JSON, or typed `event:` frames from `response.created` to `response.completed` with `sequence_number`),
 * `GET …/models`, errors as in the chat style. Shapes as in reference §F.
 */
import { answerNumber, sse, textOf, type FakeAnswer, type FakeRequestInfo, type FakeWire } from './fake-upstream.ts';
import { responsesRefusal } from './request-rules.ts';

interface ResponsesBody {
  model?: string;
  input?: string | { type?: string; role?: string; content?: unknown; output?: unknown }[];
  tools?: { name?: string }[];
  stream?: boolean;
}

const CREATED = 1_760_000_000;
const seq = new WeakMap<FakeRequestInfo, number>();

function usage(a: FakeAnswer) {
  return {
    input_tokens: a.usage.input + (a.usage.cacheRead ?? 0),
    input_tokens_details: { cached_tokens: a.usage.cacheRead ?? 0 },
    output_tokens: a.usage.output,
    output_tokens_details: { reasoning_tokens: a.usage.reasoning ?? 0 },
    total_tokens: a.usage.input + (a.usage.cacheRead ?? 0) + a.usage.output,
  };
}

function items(a: FakeAnswer): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (a.thinking) out.push({ type: 'reasoning', id: 'rs_fake1', summary: [{ type: 'summary_text', text: a.thinking }], encrypted_content: 'gAAAAfake' });
  if (a.text) out.push({ type: 'message', id: 'msg_fake1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: a.text, annotations: [] }] });
  (a.toolCalls ?? []).forEach((c, i) => out.push({ type: 'function_call', id: `fc_fake${i}`, call_id: c.id ?? `call_${i}`, name: c.name, arguments: JSON.stringify(c.args), status: 'completed' }));
  return out;
}

function response(info: FakeRequestInfo, status: string, output: unknown[], a?: FakeAnswer) {
  const r: Record<string, unknown> = { id: `resp_fake${answerNumber(info)}`, object: 'response', created_at: CREATED, status, model: info.model, output, usage: a ? usage(a) : null };
  if (a?.stop === 'max_tokens') r.incomplete_details = { reason: 'max_output_tokens' };
  return r;
}

function ev(info: FakeRequestInfo, type: string, body: Record<string, unknown>): string {
  const n = seq.get(info) ?? 0;
  seq.set(info, n + 1);
  return sse({ type, sequence_number: n, ...body }, type);
}

export const responsesWire: FakeWire = {
  style: 'responses',

  inspect(method, path, _query, raw) {
    if (method === 'GET' && path.endsWith('/models')) return { op: 'models', model: '', stream: false, tools: [], lastIsToolResult: false, lastUserText: '' };
    if (method !== 'POST' || !path.endsWith('/responses')) return undefined;
    const body = (raw ?? {}) as ResponsesBody;
    const input = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : (body.input ?? []);
    const last = input[input.length - 1];
    const lastUser = [...input].reverse().find((i) => (i.type ?? 'message') === 'message' && i.role === 'user');
    return {
      op: 'generate',
      model: body.model ?? '',
      stream: body.stream === true,
      tools: (body.tools ?? []).map((t) => t.name ?? '').filter(Boolean),
      lastIsToolResult: last?.type === 'function_call_output',
      lastUserText: textOf(lastUser?.content),
      toolResults: input.filter((i) => i.type === 'function_call_output').map((i) => (typeof i.output === 'string' ? i.output : textOf(i.output))),
      refusal: responsesRefusal(body as Record<string, unknown>),
    };
  },

  json(a, info) {
    return response(info, a.stop === 'max_tokens' ? 'incomplete' : 'completed', items(a), a);
  },

  headFrames(info) {
    const msg = { type: 'message', id: 'msg_fake1', role: 'assistant', status: 'in_progress', content: [] };
    return [
      ev(info, 'response.created', { response: response(info, 'in_progress', []) }),
      ev(info, 'response.in_progress', { response: response(info, 'in_progress', []) }),
      ev(info, 'response.output_item.added', { output_index: 0, item: msg }),
      ev(info, 'response.content_part.added', { item_id: 'msg_fake1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
    ];
  },

  textFrame(text, info) {
    return ev(info, 'response.output_text.delta', { item_id: 'msg_fake1', output_index: 0, content_index: 0, delta: text });
  },

  tailFrames(a, info) {
    return [ev(info, 'response.completed', { response: response(info, 'completed', [], a) })];
  },

  frames(a, info) {
    const out = [
      ev(info, 'response.created', { response: response(info, 'in_progress', []) }),
      ev(info, 'response.in_progress', { response: response(info, 'in_progress', []) }),
    ];
    items(a).forEach((item, oi) => {
      if (item.type === 'reasoning') {
        out.push(ev(info, 'response.output_item.added', { output_index: oi, item: { ...item, summary: [], encrypted_content: undefined } }));
        out.push(ev(info, 'response.reasoning_summary_part.added', { item_id: item.id, output_index: oi, summary_index: 0, part: { type: 'summary_text', text: '' } }));
        out.push(ev(info, 'response.reasoning_summary_text.delta', { item_id: item.id, output_index: oi, summary_index: 0, delta: a.thinking }));
        out.push(ev(info, 'response.reasoning_summary_text.done', { item_id: item.id, output_index: oi, summary_index: 0, text: a.thinking }));
        out.push(ev(info, 'response.reasoning_summary_part.done', { item_id: item.id, output_index: oi, summary_index: 0, part: { type: 'summary_text', text: a.thinking } }));
      } else if (item.type === 'message') {
        const text = a.text ?? '';
        const mid = Math.ceil(text.length / 2);
        const base = { item_id: item.id, output_index: oi, content_index: 0 };
        out.push(ev(info, 'response.output_item.added', { output_index: oi, item: { ...item, status: 'in_progress', content: [] } }));
        out.push(ev(info, 'response.content_part.added', { ...base, part: { type: 'output_text', text: '', annotations: [] } }));
        out.push(ev(info, 'response.output_text.delta', { ...base, delta: text.slice(0, mid) }));
        out.push(ev(info, 'response.output_text.delta', { ...base, delta: text.slice(mid) }));
        out.push(ev(info, 'response.output_text.done', { ...base, text }));
        out.push(ev(info, 'response.content_part.done', { ...base, part: { type: 'output_text', text, annotations: [] } }));
      } else {
        const args = item.arguments as string;
        out.push(ev(info, 'response.output_item.added', { output_index: oi, item: { ...item, arguments: '', status: 'in_progress' } }));
        out.push(ev(info, 'response.function_call_arguments.delta', { item_id: item.id, output_index: oi, delta: args.slice(0, 5) }));
        out.push(ev(info, 'response.function_call_arguments.delta', { item_id: item.id, output_index: oi, delta: args.slice(5) }));
        out.push(ev(info, 'response.function_call_arguments.done', { item_id: item.id, output_index: oi, arguments: args }));
      }
      out.push(ev(info, 'response.output_item.done', { output_index: oi, item }));
    });
    const status = a.stop === 'max_tokens' ? 'incomplete' : 'completed';
    out.push(ev(info, `response.${status}`, { response: response(info, status, items(a), a) }));
    return out;
  },

  error(status, message) {
    const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
    return { error: { message, type, param: null, code: status === 429 ? 'rate_limit_exceeded' : null } };
  },

  models(ids) {
    return { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'fake' })) };
  },

  count(tokens) {
    return { object: 'response.input_tokens', input_tokens: tokens };
  },
};
