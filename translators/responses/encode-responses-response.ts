// Reply → responses-style response object. Also builds the `response` of stream lifecycle events.
// Fields the official client reads on every response are always present (`error`, `incomplete_details`, `output`,
// `usage`, `parallel_tool_calls`, `tool_choice`, `tools`), with neutral values when the reply does not say.
// @see https://platform.openai.com/docs/api-reference/responses/object

import type { Reply, StopReason, ToolRenames, Usage, UpstreamError } from '../model.ts';
import { toResponsesUsage } from './convert-responses-usage.ts';
import { RESPONSES_END_FOR_STOP } from './map-responses-status.ts';
import { responsesErrorBody } from './responses-errors.ts';
import { encodeOutputItems } from './responses-items.ts';
import type { ResponsesOutputItem, ResponsesResponse, ResponsesStatus } from './types.ts';

/** A response id as clients of this style expect it (`resp_…`). */
export function responsesId(id: string): string {
  return id.startsWith('resp_') ? id : `resp_${id.replace(/[^A-Za-z0-9_-]/g, '')}`;
}

export interface ResponseShell {
  id: string;
  model: string;
  created: number;
  status: ResponsesStatus;
  output: ResponsesOutputItem[];
  usage: Usage;
  stopReason?: StopReason;
  error?: UpstreamError;
}

/** The response object in a given state; the stop reason decides `status`/`incomplete_details` when given. */
export function responsesObject(s: ResponseShell): ResponsesResponse {
  const end = s.stopReason !== undefined ? RESPONSES_END_FOR_STOP[s.stopReason] : undefined;
  const status = s.error !== undefined ? 'failed' : end?.status ?? s.status;
  let error: ResponsesResponse['error'] = null;
  if (s.error !== undefined) {
    const body = responsesErrorBody(s.error).error;
    error = { code: body?.code ?? 'server_error', message: s.error.message };
  } else if (status === 'failed') {
    error = { code: 'server_error', message: 'The model stopped without a usable answer.' };
  }
  return {
    id: s.id, object: 'response', created_at: s.created, status, model: s.model, output: s.output,
    usage: status === 'in_progress' ? null : toResponsesUsage(s.usage),
    error,
    incomplete_details: end !== undefined && 'reason' in end ? { reason: end.reason } : null,
    parallel_tool_calls: true, tool_choice: 'auto', tools: [],
    // Required (nullable) by the API's schema; the gateway does not echo the request's values.
    instructions: null, metadata: null, temperature: null, top_p: null,
  };
}

/** `toolRenames`: tool names the request's decoder changed (namespace functions), mapped back for the client. */
export function encodeResponsesResponse(reply: Reply, options: { toolRenames?: ToolRenames } = {}): ResponsesResponse {
  const id = responsesId(reply.id);
  return responsesObject({
    id, model: reply.model, created: reply.created ?? Math.floor(Date.now() / 1000), status: 'completed',
    output: encodeOutputItems(reply.parts, id, options.toolRenames), usage: reply.usage, stopReason: reply.stopReason,
  });
}
