// Gemini finish reasons ↔ the internal stop reason (reference §D2).
// Gemini has no tool-call reason: a turn with function calls ends with STOP, which the decoders turn into
// `tool_use` when a call was seen. Reasons that mean the model failed to produce a usable answer
// (MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, OTHER…) map to `error` so that they are never passed on as an
// empty success (reference §E11).
// @see https://ai.google.dev/api/generate-content#FinishReason

import type { StopReason } from '../model.ts';
import type { GenerativeBlockReason, GenerativeFinishReason } from './types.ts';

export const GENERATIVE_FINISH_REASONS = {
  FINISH_REASON_UNSPECIFIED: 'end',
  STOP: 'end',
  MAX_TOKENS: 'max_tokens',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  LANGUAGE: 'content_filter',
  OTHER: 'error',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
  IMAGE_SAFETY: 'content_filter',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  NO_IMAGE: 'error',
  IMAGE_RECITATION: 'content_filter',
  IMAGE_OTHER: 'error',
  CONTINUATION: 'end',
  MALFORMED_RESPONSE: 'error',
} as const satisfies Record<GenerativeFinishReason, StopReason>;

/** The reason a client of the generative-language style sees for each internal reason. */
export const GENERATIVE_FINISH_FOR_STOP = {
  end: 'STOP',
  stop_sequence: 'STOP',
  tool_use: 'STOP',
  pause: 'STOP',
  max_tokens: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  refusal: 'SAFETY',
  error: 'OTHER',
} as const satisfies Record<StopReason, GenerativeFinishReason>;

/** A blocked prompt (`promptFeedback.blockReason`, no candidates) is a content filter stop. */
export const GENERATIVE_BLOCK_REASONS = {
  BLOCKED_REASON_UNSPECIFIED: 'content_filter',
  SAFETY: 'content_filter',
  OTHER: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  MODEL_ARMOR: 'content_filter',
  JAILBREAK: 'content_filter',
} as const satisfies Record<GenerativeBlockReason, StopReason>;

/**
 * The stop reason of a finished candidate. `sawToolCall`: a function call was part of the answer.
 * `empty`: the answer had no text, thought or call at all.
 */
export function mapGenerativeFinishReason(reason: string | undefined, sawToolCall: boolean, empty: boolean): StopReason {
  const mapped: StopReason = reason !== undefined && reason in GENERATIVE_FINISH_REASONS
    ? GENERATIVE_FINISH_REASONS[reason as GenerativeFinishReason]
    : 'end';
  if (mapped === 'end' && sawToolCall) return 'tool_use';
  // A clean STOP with nothing in it is not a success (BerriAI/litellm#40477).
  if (mapped === 'end' && empty) return 'error';
  return mapped;
}
