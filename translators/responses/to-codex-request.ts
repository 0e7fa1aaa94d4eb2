// The ChatGPT-plan backend (`…/backend-api/codex/responses`) accepts a stricter subset of the responses style
// (reference §F4); violations answer 400 `{"detail":…}`. This adapts a request made by encodeResponsesRequest:
// - `stream:true` and `store:false` always (for a JSON client, the caller buffers the stream and rebuilds the
//   answer from `output_item.done`, since the terminal `output` is often empty).
// - `instructions` must be present and once had to be an approved prompt: it is sent as `""` and the instructions
//   travel as a leading `developer` message instead (as CLIProxyAPI does).
// - `max_output_tokens`, `temperature`, `top_p`, `previous_response_id`, `user`, `truncation`,
//   `safety_identifier` are rejected or unsupported: removed. `service_tier` is kept only when `priority`.
// - `role:"system"` items become `developer`; encrypted reasoning is always included.
// - Item ids are left out (as the Codex CLI does): with `store:false` the backend cannot look items up by id, and
//   a reasoning item travels by its `encrypted_content` (reference §F6.3).
// Returns a new object; the input is not modified.

import type { ResponsesInputItem, ResponsesRequest } from './types.ts';

function codexItem(item: ResponsesInputItem): ResponsesInputItem {
  const { id: _id, ...rest } = item;
  if (rest.type === 'function_call' || rest.type === 'function_call_output' || rest.type === 'reasoning') return rest;
  return rest.role === 'system' ? { ...rest, role: 'developer' } : rest;
}

export function toCodexRequest(req: ResponsesRequest): ResponsesRequest {
  const {
    max_output_tokens: _max, temperature: _t, top_p: _p, previous_response_id: _prev, user: _user, service_tier: tier,
    ...rest
  } = req;
  const input: ResponsesInputItem[] = typeof req.input === 'string'
    ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: req.input }] }]
    : req.input.map(codexItem);
  if (typeof req.instructions === 'string' && req.instructions !== '') {
    input.unshift({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: req.instructions }] });
  }
  const out: ResponsesRequest = { ...rest, instructions: '', input, stream: true, store: false, include: ['reasoning.encrypted_content'] };
  for (const k of ['truncation', 'safety_identifier', 'context_management', 'prompt_cache_breakpoint']) delete (out as unknown as Record<string, unknown>)[k];
  if (tier === 'priority') out.service_tier = tier;
  return out;
}
