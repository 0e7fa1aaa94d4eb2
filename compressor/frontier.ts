/**
 * Where the compressor may rewrite a conversation: the turns before the frontier. This is what makes compression
 * prefix-stable (issue 13 point 2), so that the provider's prompt cache keeps hitting.
 *
 * The frontier moves in steps, each fixed by the turns that existed when it was taken. Walking the turns in order,
 * the first step is taken at the first turn e where the conversation reaches `minTokens`; each later step at the
 * first turn e where the conversation has grown by `growth` (1.25: 25 %) since the last step. A step moves the
 * frontier to e - keepLastTurns, so the last turns are never rewritten, and everything older is compressed.
 *
 * A step depends only on the turns before it, so every later request of the same conversation finds the same
 * steps: its compressed history starts with the previous request's, and the cached prefix breaks only at a step,
 * once per 25 % of growth, from the old frontier on (the old frontier's prefix is unchanged).
 *
 * The lossy steps apply to every turn before the frontier once a step was taken at a size past `lossyAtTokens`;
 * that step rewrites from the start, once in a conversation.
 */
import { tokensOfChars, type CompressOptions } from './compress-options.ts';

export interface Frontier {
  /** Steps taken, minus one: -1 when nothing is rewritten; a change of level is a rewrite of what was sent. */
  level: number;
  /** Turns [0, index) may be rewritten. */
  index: number;
  /** The frontier of the step before this one (0 at the first step): where a summary of the oldest turns may end. */
  previous: number;
  /** The lossy steps apply. */
  lossy: boolean;
  /** The frontier of each step, in order (the last is `index`): where the chain of summary spans ends. */
  steps: readonly number[];
}

const NONE: Frontier = Object.freeze({ level: -1, index: 0, previous: 0, lossy: false, steps: Object.freeze([]) });

/** The frontier for a conversation whose turns have these sizes (characters). */
export function frontierOf(turnChars: readonly number[], opts: CompressOptions): Frontier {
  if (opts.growth <= 1) return NONE;
  let chars = 0;
  let index = 0;
  let previous = 0;
  let level = -1;
  let stepTokens = 0;
  const steps: number[] = [];
  for (let e = 1; e <= turnChars.length; e++) {
    chars += turnChars[e - 1];
    const total = tokensOfChars(chars);
    if (total < opts.minTokens) continue;
    if (level >= 0 && total < stepTokens * opts.growth) continue;
    const next = e - opts.keepLastTurns;
    if (next <= index) continue;
    previous = index;
    index = next;
    steps.push(index);
    level++;
    stepTokens = total;
  }
  return level < 0 ? NONE : { level, index, previous, lossy: stepTokens >= opts.lossyAtTokens, steps };
}
