/**
 * Usage of the messages style ↔ the neutral `Usage` (reference §D3). Both exclude cache tokens from input, so
 * input maps one to one; `output_tokens` includes thinking, as the neutral output does.
 */
import type { Usage } from '../model.ts';
import { count } from '../usage.ts';
import type { MessagesUsage } from './types.ts';

/** Decodes a (possibly partial) usage object; absent fields stay undefined so a stream can overlay them. */
export function decodeMessagesUsage(u: Partial<MessagesUsage> | null | undefined): Usage {
  if (u == null || typeof u !== 'object') return { source: 'unknown' };
  const out: Usage = { source: 'reported' };
  const input = count(u.input_tokens);
  if (input !== undefined) out.inputTokens = input;
  const output = count(u.output_tokens);
  if (output !== undefined) out.outputTokens = output;
  const read = count(u.cache_read_input_tokens);
  if (read !== undefined) out.cacheReadTokens = read;
  const write = count(u.cache_creation_input_tokens);
  if (write !== undefined) out.cacheWriteTokens = write;
  const thinking = count(u.output_tokens_details?.thinking_tokens);
  if (thinking !== undefined) out.reasoningTokens = thinking;
  return out;
}

/** Encodes usage for a messages client; unknown counts are sent as 0 because the wire requires numbers. */
export function encodeMessagesUsage(u: Usage): MessagesUsage {
  const out: MessagesUsage = {
    input_tokens: u.inputTokens ?? 0,
    cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
    cache_read_input_tokens: u.cacheReadTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
  };
  if (u.reasoningTokens !== undefined) out.output_tokens_details = { thinking_tokens: u.reasoningTokens };
  return out;
}
