// Responses status and incomplete reason ↔ the internal stop reason (reference §F2, §F5).
// There is no tool-call status: a tool turn is `completed` with function_call items, which decoders turn into
// `tool_use`. `failed` and `cancelled` carry no answer to stop on and surface as errors.
// @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-status

import type { StopReason } from '../model.ts';
import type { ResponsesIncompleteReason, ResponsesStatus } from './types.ts';

export const RESPONSES_INCOMPLETE_REASONS = {
  max_output_tokens: 'max_tokens',
  content_filter: 'content_filter',
} as const satisfies Record<ResponsesIncompleteReason, StopReason>;

export const RESPONSES_STATUSES = {
  completed: 'end',
  incomplete: 'max_tokens',
  failed: 'error',
  cancelled: 'error',
  in_progress: 'error',
  queued: 'error',
} as const satisfies Record<ResponsesStatus, StopReason>;

/** How each internal stop reason ends a response for a responses client. */
export const RESPONSES_END_FOR_STOP = {
  end: { status: 'completed' },
  stop_sequence: { status: 'completed' },
  tool_use: { status: 'completed' },
  pause: { status: 'completed' },
  max_tokens: { status: 'incomplete', reason: 'max_output_tokens' },
  content_filter: { status: 'incomplete', reason: 'content_filter' },
  refusal: { status: 'incomplete', reason: 'content_filter' },
  error: { status: 'failed' },
} as const satisfies Record<StopReason, { status: ResponsesStatus; reason?: ResponsesIncompleteReason }>;

export function mapResponsesStatus(status: string | undefined, reason: string | undefined, sawToolCall: boolean): StopReason {
  if (status === 'incomplete' && reason !== undefined && reason in RESPONSES_INCOMPLETE_REASONS) {
    return RESPONSES_INCOMPLETE_REASONS[reason as ResponsesIncompleteReason];
  }
  const mapped: StopReason = status !== undefined && status in RESPONSES_STATUSES ? RESPONSES_STATUSES[status as ResponsesStatus] : 'end';
  return mapped === 'end' && sawToolCall ? 'tool_use' : mapped;
}
