/**
 * Gemini plans: generative-language requests wrapped for the Code Assist backend (reference
 * subscription-accounts.md): the style's `/models/{model}:generateContent` (or `:streamGenerateContent?alt=sse`)
 * becomes `/v1internal:generateContent` with the body `{ model, project, request: <the usual body> }`, the project
 * being the one found at sign-in. Answers come back wrapped as `{ response: <the usual answer> }`, also in every
 * SSE event; they are unwrapped here so that the rest of the gateway sees the plain style.
 */
import { SseParser, writeSse } from '../../core/sse.ts';
import { jsonBody, withoutCredentials, type PlanAdapter } from './plan-adapter.ts';
import { readAll, replaceBody } from './replace-body.ts';

const PATH = /^(.*)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)(\?.*)?$/;

function unwrap(json: unknown): unknown {
  return typeof json === 'object' && json !== null && 'response' in json ? (json as { response: unknown }).response : json;
}

async function* unwrapSse(body: AsyncIterable<unknown>): AsyncGenerator<string> {
  const parser = new SseParser();
  const out = (events: ReturnType<SseParser['feed']>) => events.map((ev) => {
    let data = ev.data;
    try {
      data = JSON.stringify(unwrap(JSON.parse(ev.data)));
    } catch {
      // Not JSON: passed on unchanged, the stream decoder reports it.
    }
    return writeSse({ ...(ev.event !== undefined ? { event: ev.event } : {}), data });
  }).join('');
  for await (const chunk of body) {
    const text = out(parser.feed(chunk as Buffer));
    if (text) yield text;
  }
  const tail = out(parser.end());
  if (tail) yield tail;
}

export const codeAssistAdapter: PlanAdapter = {
  request(req, token) {
    const headers = withoutCredentials(req.headers);
    headers.authorization = `Bearer ${token.access}`;
    headers['content-type'] = 'application/json';
    const m = PATH.exec(req.path);
    const body = jsonBody(req.body);
    if (!m || !body) return { path: req.path, headers, body: req.body, clientStream: false };
    const [, prefix, model, method, query] = m;
    const wrapped = { model: decodeURIComponent(model), project: token.meta.project_id, request: body };
    return { path: `${prefix}/v1internal:${method}${query ?? ''}`, headers, body: JSON.stringify(wrapped), clientStream: method === 'streamGenerateContent' };
  },

  async response(res, adapted) {
    if (adapted.clientStream) return replaceBody(res, unwrapSse(res.body));
    const raw = await readAll(res.body);
    let text = raw.toString('utf8');
    try {
      text = JSON.stringify(unwrap(JSON.parse(text)));
    } catch {
      // Not JSON: the JSON reader of the pipeline reports it.
    }
    return replaceBody(res, [Buffer.from(text)], { 'content-length': String(Buffer.byteLength(text)) });
  },
};
