/**
 * Helpers over the one internal `Usage` type (see model.ts for what each count means).
 */
import type { Usage } from './model.ts';

export function unknownUsage(): Usage {
  return { source: 'unknown' };
}

/** The whole prompt: uncached input plus cache reads and writes; undefined when nothing is known. */
export function totalInputTokens(u: Usage): number | undefined {
  if (u.inputTokens === undefined && u.cacheReadTokens === undefined && u.cacheWriteTokens === undefined) return undefined;
  return (u.inputTokens ?? 0) + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
}

/** Overlays the counts `next` knows onto `prev` (stream usage is cumulative; the last value wins). */
export function mergeUsage(prev: Usage, next: Usage): Usage {
  const out: Usage = { ...prev };
  if (next.inputTokens !== undefined) out.inputTokens = next.inputTokens;
  if (next.outputTokens !== undefined) out.outputTokens = next.outputTokens;
  if (next.cacheReadTokens !== undefined) out.cacheReadTokens = next.cacheReadTokens;
  if (next.cacheWriteTokens !== undefined) out.cacheWriteTokens = next.cacheWriteTokens;
  if (next.reasoningTokens !== undefined) out.reasoningTokens = next.reasoningTokens;
  if (next.source !== 'unknown') out.source = next.source;
  return out;
}

/** A non-negative integer or undefined (wire fields may be null, missing, or garbage). */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}
