/**
 * ChatGPT plans: the responses style at the Codex backend (reference llm-wire-styles.md §F4). The request is made
 * acceptable to it (translators/responses/to-codex-request.ts: `stream:true`, `store:false`, instructions moved,
 * rejected fields removed) and carries the OAuth bearer, `ChatGPT-Account-Id` (from the sign-in's id token), the
 * originator header of the profile and `session_id` = `prompt_cache_key` when there is one.
 *
 * The backend answers only in SSE. For a client that did not ask for a stream, the events are collected and the
 * answer rebuilt as one responses-style JSON object (the terminal `output` is often empty, so items come from the
 * events); an error inside the stream (e.g. `usage_limit_reached`) becomes the HTTP error it stands for, so that
 * rotation sees a 429 and moves on.
 */
import { SseParser } from '../../core/sse.ts';
import { StreamCollector } from '../../translators/collect-stream.ts';
import { encodeResponsesError } from '../../translators/responses/responses-errors.ts';
import { encodeResponsesResponse } from '../../translators/responses/encode-responses-response.ts';
import { ResponsesStreamDecoder } from '../../translators/responses/responses-stream-decoder.ts';
import { toCodexRequest } from '../../translators/responses/to-codex-request.ts';
import type { ResponsesRequest } from '../../translators/responses/types.ts';
import { jsonBody, withoutCredentials, type PlanAdapter } from './plan-adapter.ts';
import { readAll, replaceBody } from './replace-body.ts';

export const chatgptPlanAdapter: PlanAdapter = {
  request(req, token, profile) {
    const headers = withoutCredentials(req.headers);
    for (const [k, v] of Object.entries(profile.api_headers)) headers[k.toLowerCase()] ??= v;
    headers.authorization = `Bearer ${token.access}`;
    headers.accept = 'text/event-stream';
    headers['content-type'] = 'application/json';
    if (token.meta.chatgpt_account_id) headers['chatgpt-account-id'] = token.meta.chatgpt_account_id;
    const body = jsonBody(req.body);
    if (!body || !Array.isArray(body.input) && typeof body.input !== 'string') return { path: req.path, headers, body: req.body, clientStream: true };
    if (typeof body.prompt_cache_key === 'string') headers.session_id = body.prompt_cache_key;
    const codex = toCodexRequest(body as unknown as ResponsesRequest);
    return { path: req.path, headers, body: JSON.stringify(codex), clientStream: body.stream === true };
  },

  async response(res, adapted) {
    if (adapted.clientStream) return res;
    const parser = new SseParser({ dispatchIncompleteAtEnd: true });
    const decoder = new ResponsesStreamDecoder();
    const collector = new StreamCollector();
    const raw = await readAll(res.body);
    for (const ev of [...parser.feed(raw), ...parser.end()]) for (const out of decoder.push(ev)) collector.push(out);
    for (const out of decoder.end()) collector.push(out);
    const got = collector.result();
    const json = { 'content-type': 'application/json' };
    if (got.error) {
      const e = encodeResponsesError(got.error);
      return { ...replaceBody(res, [Buffer.from(JSON.stringify(e.body))], { ...json, ...e.headers }), statusCode: e.status };
    }
    if (!got.complete) {
      const e = encodeResponsesError({ status: 502, type: 'server', message: 'The ChatGPT backend ended the answer before it was complete.' });
      return { ...replaceBody(res, [Buffer.from(JSON.stringify(e.body))], json), statusCode: 502 };
    }
    return replaceBody(res, [Buffer.from(JSON.stringify(encodeResponsesResponse(got.reply)))], json);
  },
};
