/**
 * Stop reasons of the chat-completions style (`finish_reason`) ↔ the neutral list (reference §D2).
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
import type { StopReason } from '../model.ts';
import type { ChatFinishReason } from './types.ts';

const FROM_CHAT = {
  stop: 'end',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filter',
} as const satisfies Record<ChatFinishReason, StopReason>;

const TO_CHAT = {
  end: 'stop',
  max_tokens: 'length',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'content_filter',
  pause: 'stop',
  error: 'stop',
} as const satisfies Record<StopReason, ChatFinishReason>;

/**
 * Decodes a `finish_reason`. Unknown or missing values read as 'end'; a plain `stop` after tool calls reads as
 * 'tool_use' (some compatible servers say `stop` there, and messages-style clients act on `tool_use`).
 */
export function decodeChatFinishReason(reason: string | null | undefined, sawToolCall: boolean): StopReason {
  const mapped: StopReason = reason != null && Object.hasOwn(FROM_CHAT, reason) ? FROM_CHAT[reason as ChatFinishReason] : 'end';
  return mapped === 'end' && sawToolCall ? 'tool_use' : mapped;
}

export function encodeChatFinishReason(reason: StopReason): ChatFinishReason {
  return TO_CHAT[reason];
}
