/**
 * Usage of the chat-completions style ↔ the neutral `Usage` (reference §D3).
 * `prompt_tokens` INCLUDES cached tokens and `completion_tokens` INCLUDES reasoning tokens; the neutral model keeps
 * input without cache tokens, so decoding subtracts and encoding adds back.
 */
import type { Usage } from '../model.ts';
import { count } from '../usage.ts';
import type { ChatUsage } from './types.ts';

export function decodeChatUsage(u: ChatUsage | null | undefined): Usage {
  if (u == null || typeof u !== 'object') return { source: 'unknown' };
  const prompt = count(u.prompt_tokens);
  const cacheRead = count(u.prompt_tokens_details?.cached_tokens) ?? count(u.prompt_cache_hit_tokens);
  const cacheWrite = count(u.prompt_tokens_details?.cache_write_tokens) ?? count(u.cache_creation_input_tokens);
  const out: Usage = { source: 'reported' };
  if (prompt !== undefined) out.inputTokens = Math.max(prompt - (cacheRead ?? 0) - (cacheWrite ?? 0), 0);
  if (cacheRead !== undefined) out.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) out.cacheWriteTokens = cacheWrite;
  const completion = count(u.completion_tokens);
  if (completion !== undefined) out.outputTokens = completion;
  const reasoning = count(u.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  return out;
}

/** Encodes usage for a chat client; unknown counts are sent as 0 because the wire requires numbers. */
export function encodeChatUsage(u: Usage): ChatUsage {
  const cached = u.cacheReadTokens ?? 0;
  const prompt = (u.inputTokens ?? 0) + cached + (u.cacheWriteTokens ?? 0);
  const completion = u.outputTokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
  };
}
