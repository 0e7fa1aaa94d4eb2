// Reply → responses-style response object. Also builds the `response` of stream lifecycle events.
// Fields the official client reads on every response are always present (`error`, `incomplete_details`, `output`,
// `usage`, `parallel_tool_calls`, `tool_choice`, `tools`), with neutral values when the reply does not say.
// @see https://platform.openai.com/docs/api-reference/responses/object

import type { Conversation, Reply, StopReason, Usage, UpstreamError } from '../model.ts';
import { toResponsesUsage } from './convert-responses-usage.ts';
import { RESPONSES_END_FOR_STOP } from './map-responses-status.ts';
import { responsesErrorBody } from './responses-errors.ts';
import { responsesEcho } from './responses-echo.ts';
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
  /** The client's decoded request, whose fields the object repeats (responses-echo.ts). */
  request?: Conversation;
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
  // Optional in the API's schema and an object when present: left out while there is no usage to tell.
  const usage = status === 'in_progress' ? null : toResponsesUsage(s.usage);
  return {
    id: s.id, object: 'response', created_at: s.created, status, model: s.model, output: s.output,
    ...(usage !== null ? { usage } : {}),
    error,
    incomplete_details: end !== undefined && 'reason' in end ? { reason: end.reason } : null,
    ...responsesEcho(s.request),
  };
}

/** `request`: the client's decoded request (tool names it changed are mapped back; its fields are repeated). */
export function encodeResponsesResponse(reply: Reply, options: { request?: Conversation } = {}): ResponsesResponse {
  const id = responsesId(reply.id);
  const { request } = options;
  return responsesObject({
    id, model: reply.model, created: reply.created ?? Math.floor(Date.now() / 1000), status: 'completed',
    output: encodeOutputItems(reply.parts, id, request?.toolRenames), usage: reply.usage, stopReason: reply.stopReason,
    ...(request !== undefined ? { request } : {}),
  });
}
