// Responses-style usage ↔ the internal Usage (reference §F2, §F5).
// - `input_tokens` includes `input_tokens_details.cached_tokens`: inputTokens = input − cached, cacheReadTokens =
//   cached. The style reports no cache writes; answers to its clients carry `cache_write_tokens` (included in
//   input_tokens), which typed clients read.
// - `output_tokens` includes `output_tokens_details.reasoning_tokens`, as the internal outputTokens does.
// - A missing details object leaves that count unknown (the prompt is then all counted as uncached input).
// @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage

import type { Usage } from '../model.ts';
import { count } from '../usage.ts';
import type { ResponsesUsage } from './types.ts';

export function convertResponsesUsage(u: ResponsesUsage | null | undefined): Usage {
  if (u === null || u === undefined) return { source: 'unknown' };
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  if (input === undefined && output === undefined) return { source: 'unknown' };
  const cached = count(u.input_tokens_details?.cached_tokens);
  const usage: Usage = { source: 'reported' };
  if (input !== undefined) usage.inputTokens = Math.max(input - (cached ?? 0), 0);
  if (output !== undefined) usage.outputTokens = output;
  if (cached !== undefined) usage.cacheReadTokens = cached;
  const reasoning = count(u.output_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/** Internal usage → responses usage; unknown counts are sent as 0 (the object requires them), null when nothing is known. */
export function toResponsesUsage(u: Usage): ResponsesUsage | null {
  if (u.inputTokens === undefined && u.outputTokens === undefined) return null;
  const cached = u.cacheReadTokens ?? 0;
  const input = (u.inputTokens ?? 0) + cached + (u.cacheWriteTokens ?? 0);
  const output = u.outputTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached, cache_write_tokens: u.cacheWriteTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: input + output,
  };
}
