/**
 * The knobs of the compressor (issue 13 point 2). Every threshold is in estimated tokens (characters / 4: the
 * compressor must not depend on a tokenizer, and an estimate is enough to place thresholds).
 */
export interface CompressOptions {
  /** No compression at all below this conversation size; also the size of the first growth level. */
  minTokens: number;
  /** The frontier (what may be rewritten) moves only when the conversation grew by this factor (1.25 = 25 %). */
  growth: number;
  /**
   * The last N turns are never touched. Default 2: the last tool call and its result, the round the model is working
   * on. Each step writes every turn after the new frontier to the cache again (they follow a rewritten prefix), so a
   * longer untouched tail is paid for twice at each step before it is compressed at the next one
   * (docs/compression.md, "Measured savings").
   */
  keepLastTurns: number;
  /** Past this conversation size (a share of the model's context), the lossy steps run on old turns. */
  lossyAtTokens: number;
  /** A tool output larger than this is cut to its head and tail by the lossy step. */
  hugeOutputTokens: number;
  /** What the lossy cut keeps at each end of a huge output. */
  keepHeadTokens: number;
  keepTailTokens: number;
  /** Tool outputs smaller than this are never replaced by a reference to an identical earlier copy. */
  dedupeMinTokens: number;
  /**
   * A turn whose tool outputs would lose fewer tokens than this is left as it was sent: a rewritten turn breaks the
   * provider's cache from there on, so a few spaces or colour codes are not worth a rewrite that starts there.
   */
  minTurnSavingTokens: number;
  /** Reasoning of earlier exchanges may be dropped (only where the upstream ignores it anyway). */
  dropOldReasoning: boolean;
}

/**
 * Defaults chosen on the bill, not on the token count (docs/compression.md, "Measured savings"): every step rewrites
 * history the provider has cached, so a step must save enough to pay for that write. Lossless steps alone rarely do
 * in sessions of large tool outputs; hence the lossy cut of huge old outputs from the first step on.
 */
export const DEFAULT_COMPRESS_OPTIONS: Readonly<CompressOptions> = Object.freeze({
  minTokens: 16_000,
  growth: 1.25,
  keepLastTurns: 2,
  lossyAtTokens: 16_000,
  hugeOutputTokens: 2_000,
  keepHeadTokens: 400,
  keepTailTokens: 400,
  dedupeMinTokens: 64,
  minTurnSavingTokens: 64,
  dropOldReasoning: false,
});

/** Characters per estimated token. */
export const CHARS_PER_TOKEN = 4;

export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
