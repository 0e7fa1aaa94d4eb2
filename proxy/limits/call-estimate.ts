/**
 * What a call may use at most, reserved against budgets before it starts (docs/limits.md): the prompt (the cheap
 * estimate of the request size, bytes / 4, which over-counts images and never under-counts text by much) plus the
 * request's max output tokens (the style's own field; when absent, what the gateway would send upstream for the
 * model: translators/messages/default-max-tokens.ts), priced at the most expensive model the call may be served by.
 * The reservation is replaced by the real usage when the call ends.
 */
import { costOf, priceOf, type PriceOverride } from '../../core/ai/price-of.ts';
import type { Amount } from '../../core/limits/limit-store.ts';
import { defaultMaxTokens } from '../../translators/messages/default-max-tokens.ts';
import type { StyleName } from '../../translators/model.ts';

const MAX_OUTPUT_CAP = 1_000_000;

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.min(Math.floor(v), MAX_OUTPUT_CAP) : undefined;
}

/** The max output tokens a request asks for in its own style, or undefined when it names none. */
export function requestedMaxOutput(style: StyleName, body: Readonly<Record<string, unknown>>): number | undefined {
  if (style === 'messages') return positiveInt(body.max_tokens);
  if (style === 'generative') {
    const g = body.generationConfig ?? body.generation_config;
    return g && typeof g === 'object' ? positiveInt((g as Record<string, unknown>).maxOutputTokens ?? (g as Record<string, unknown>).max_output_tokens) : undefined;
  }
  if (style === 'responses') return positiveInt(body.max_output_tokens);
  return positiveInt(body.max_completion_tokens) ?? positiveInt(body.max_tokens);
}

export interface CallEstimate extends Amount {
  inputTokens: number;
  outputTokens: number;
  /** Candidate models that have no price (neither an override nor a list price). */
  unpriced: string[];
}

export function estimateCall(
  style: StyleName, body: Readonly<Record<string, unknown>>, inputTokens: number, candidates: readonly string[], overrides: readonly PriceOverride[] | null,
): CallEstimate {
  const models = candidates.length > 0 ? candidates : [''];
  let outputTokens = requestedMaxOutput(style, body) ?? 0;
  if (outputTokens === 0) for (const m of models) outputTokens = Math.max(outputTokens, defaultMaxTokens(m));
  let dollars = 0;
  const unpriced: string[] = [];
  if (overrides) {
    for (const m of models) {
      const price = priceOf(m, overrides);
      if (!price) unpriced.push(m);
      else dollars = Math.max(dollars, costOf({ inputTokens, outputTokens }, price));
    }
  }
  return { tokens: inputTokens + outputTokens, dollars, inputTokens, outputTokens, unpriced };
}
