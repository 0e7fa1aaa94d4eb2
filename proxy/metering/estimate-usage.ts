/**
 * Filling in usage the upstream did not report (DESIGN.md §3: never a silent 0): prompt tokens counted from the
 * request, output tokens counted from what was produced, both with tiktoken and marked `estimated`. A stream cut
 * short counts its output locally even when a partial figure was reported (the messages style reports a
 * placeholder output of 1 at the start), taking the larger of the two.
 */
import type { Usage } from '../../translators/model.ts';
import { estimateTextTokens } from '../../translators/count-tokens.ts';

export function completeUsage(u: Usage, complete: boolean, promptTokens: () => number, producedText: () => string): Usage {
  const needIn = u.inputTokens === undefined && u.cacheReadTokens === undefined;
  const needOut = u.outputTokens === undefined || !complete;
  if (!needIn && !needOut) return u;
  const out: Usage = { ...u, source: 'estimated' };
  if (needIn) {
    try {
      out.inputTokens = promptTokens();
    } catch {
      out.inputTokens = 0;
    }
  }
  if (needOut) out.outputTokens = Math.max(u.outputTokens ?? 0, estimateTextTokens(producedText()));
  return out;
}
