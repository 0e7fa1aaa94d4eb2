/**
 * Stop reasons of the messages style ↔ the neutral list (reference §D2).
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
import type { StopReason } from '../model.ts';
import type { MessagesStopReason } from './types.ts';

const FROM_MESSAGES = {
  end_turn: 'end',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  pause_turn: 'pause',
  refusal: 'refusal',
} as const satisfies Record<MessagesStopReason, StopReason>;

const TO_MESSAGES = {
  end: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  content_filter: 'refusal',
  refusal: 'refusal',
  pause: 'pause_turn',
  error: 'end_turn',
} as const satisfies Record<StopReason, MessagesStopReason>;

/** Unknown or missing values read as 'end'. */
export function decodeMessagesStopReason(reason: string | null | undefined): StopReason {
  return reason != null && Object.hasOwn(FROM_MESSAGES, reason) ? FROM_MESSAGES[reason as MessagesStopReason] : 'end';
}

export function encodeMessagesStopReason(reason: StopReason): MessagesStopReason {
  return TO_MESSAGES[reason];
}
