/**
 * One row of usage_records: what a gateway call asked, who served it, what it used and cost. Token figures follow
 * the internal Usage (input excludes cache reads and writes; output includes reasoning) and carry their source:
 * reported by the upstream, estimated locally, or unknown (then 0 and never to be read as "free").
 */
import type { StyleName, Usage } from '../../translators/model.ts';
import { costOf, priceOf, type PriceOverride } from '../../core/ai/price-of.ts';

/** Who called, what was asked and who serves it: shared by a usage record and an open call's row (open-call.ts). */
export interface CallIdentity {
  at: Date;
  keyId: string;
  teamId: string;
  model: string;
  servedModel: string | null;
  alias: string | null;
  provider: string | null;
  accountId: string | null;
  clientStyle: StyleName;
  upstreamStyle: StyleName | null;
  stream: boolean;
}

export interface UsageRecord extends CallIdentity {
  status: number;
  errorCode: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number | null;
  usageSource: Usage['source'];
  latencyMs: number;
  ttfbMs: number | null;
  costUsd: number;
  /** The call went through the compressor (proxy/compression/); absent: it did not (mode `off`). */
  compression?: UsageCompression;
}

/**
 * What the compressor did to the conversation that went upstream: in `on`, its estimated input tokens before and
 * after (characters / 4 of the turns, as in `X-Svc-Compression`); in `audit-only` nothing yet, as the compressor
 * runs after the answer (what it would have saved is in compression_records).
 */
export type UsageCompression = { mode: 'on'; tokensBefore: number; tokensAfter: number } | { mode: 'audit-only' };

/** Fills the token and cost fields of a record from a Usage, pricing the served model. */
export function withUsage(
  base: Omit<UsageRecord, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'reasoningTokens' | 'usageSource' | 'costUsd'>,
  usage: Usage,
  overrides: readonly PriceOverride[],
): UsageRecord {
  const price = base.servedModel ? priceOf(base.servedModel, overrides) : null;
  return {
    ...base,
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    cacheReadTokens: usage.cacheReadTokens ?? 0,
    cacheWriteTokens: usage.cacheWriteTokens ?? 0,
    reasoningTokens: usage.reasoningTokens ?? null,
    usageSource: usage.source,
    costUsd: usage.source === 'unknown' ? 0 : costOf(usage, price),
  };
}
