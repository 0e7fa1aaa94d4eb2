// Gemini `usageMetadata` ↔ the internal Usage (reference §D3).
// - `promptTokenCount` includes `cachedContentTokenCount` (and `toolUsePromptTokenCount` is counted on top), so
//   inputTokens = prompt + tool-use prompt − cached; cacheReadTokens = cached; no cache-write count exists.
// - `candidatesTokenCount` excludes thoughts: outputTokens = candidates + thoughts; reasoningTokens = thoughts.
// - The API writes proto3 JSON, which omits zero values: once a metadata object carries a prompt count, a missing
//   count means 0. Metadata with no counts at all (early stream chunks holding only `trafficType`) is unknown.
// @see https://ai.google.dev/api/generate-content#UsageMetadata

import type { Usage } from '../model.ts';
import type { GenerativeUsageMetadata } from './types.ts';

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

export function convertGenerativeUsage(meta: GenerativeUsageMetadata | undefined): Usage {
  if (meta === undefined || (typeof meta.promptTokenCount !== 'number' && typeof meta.candidatesTokenCount !== 'number')) {
    return { source: 'unknown' };
  }
  const cached = count(meta.cachedContentTokenCount);
  const thoughts = count(meta.thoughtsTokenCount);
  return {
    inputTokens: Math.max(count(meta.promptTokenCount) + count(meta.toolUsePromptTokenCount) - cached, 0),
    outputTokens: count(meta.candidatesTokenCount) + thoughts,
    cacheReadTokens: cached,
    reasoningTokens: thoughts,
    source: 'reported',
  };
}

/** Internal usage → `usageMetadata`; undefined when nothing is known (the field is then left out). */
export function toGenerativeUsage(usage: Usage): GenerativeUsageMetadata | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const cached = usage.cacheReadTokens ?? 0;
  const prompt = (usage.inputTokens ?? 0) + cached + (usage.cacheWriteTokens ?? 0);
  const output = usage.outputTokens ?? 0;
  const reasoning = Math.min(usage.reasoningTokens ?? 0, output);
  const meta: GenerativeUsageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: output - reasoning,
    totalTokenCount: prompt + output,
  };
  if (cached > 0) meta.cachedContentTokenCount = cached;
  if (reasoning > 0) meta.thoughtsTokenCount = reasoning;
  return meta;
}
