/**
 * Where the compressor may rewrite a conversation: the turns before the frontier. This is what makes compression
 * prefix-stable (issue 13 point 2), so that the provider's prompt cache keeps hitting.
 *
 * The conversation's size in estimated tokens falls into a growth level k: minTokens × growth^k ≤ size <
 * minTokens × growth^(k+1). The frontier of level k is the longest prefix of turns whose size is at most
 * minTokens × growth^(k-1), i.e. the size of the level below. Both depend only on the level and on turns that
 * already existed when the level was reached, so every later turn of the same level compresses its history to the
 * same bytes; the frontier moves (and the cached prefix breaks once) only when the conversation has grown by
 * `growth` (25 %). The tail after the frontier is always at least 1 - 1/growth (20 %) of the conversation.
 *
 * The last `keepLastTurns` turns are never rewritten: when the frontier of the level would reach into them, the
 * frontier of a lower level is used (it moves up once the conversation has grown past them).
 */
import { tokensOfChars, type CompressOptions } from './compress-options.ts';

export interface Frontier {
  /** The growth level used; -1 when the conversation is below minTokens (nothing is rewritten). */
  level: number;
  /** Turns [0, index) may be rewritten. */
  index: number;
  /** The lossy steps apply (the level's size is past lossyAtTokens). */
  lossy: boolean;
}

const NONE: Frontier = Object.freeze({ level: -1, index: 0, lossy: false });

/** The frontier for a conversation whose turns have these sizes (characters). */
export function frontierOf(turnChars: readonly number[], opts: CompressOptions): Frontier {
  const prefix = [0];
  for (const c of turnChars) prefix.push(prefix[prefix.length - 1] + c);
  const total = tokensOfChars(prefix[prefix.length - 1]);
  if (total < opts.minTokens || opts.growth <= 1) return NONE;
  // The bounds of every level up to the conversation's, computed by the same multiplications every time.
  const bounds = [opts.minTokens];
  while (bounds[bounds.length - 1] * opts.growth <= total) bounds.push(bounds[bounds.length - 1] * opts.growth);
  const lastAllowed = turnChars.length - opts.keepLastTurns;
  for (let level = bounds.length - 1; level >= 0; level--) {
    const limit = bounds[level] / opts.growth;
    let index = 0;
    while (index < turnChars.length && tokensOfChars(prefix[index + 1]) <= limit) index++;
    if (index <= lastAllowed) return index === 0 ? NONE : { level, index, lossy: bounds[level] >= opts.lossyAtTokens };
  }
  return NONE;
}
