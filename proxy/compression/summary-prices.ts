/**
 * What a summary call costs relative to the conversation it shortens (compressor/frontier.ts `summaryPays`): the
 * summary model's input and output prices over the input price of the conversation's model, from the same prices
 * as usage costs (an instance override, else the list price; core/ai/price-of.ts).
 */
import { priceOf, type PriceOverride } from '../../core/ai/price-of.ts';
import type { SummaryCallPrices } from '../../compressor/summary-span.ts';
import { SUMMARY_MAX_TOKENS } from './summary-prompt.ts';

/**
 * When either model has no price (or the conversation's input is free): the summary model taken to cost as much as
 * the conversation's model for its input, and 8× that for its output, the dearest ratio of output to input in the
 * list prices (gpt-5 and its smaller models). A summary model is usually a smaller one, so this errs towards making
 * fewer summaries.
 */
export const UNKNOWN_SUMMARY_PRICES = Object.freeze({ input: 1, output: 8 });

export function summaryCallPrices(summaryModel: string, model: string, overrides: readonly PriceOverride[]): SummaryCallPrices {
  const s = priceOf(summaryModel, overrides);
  const m = priceOf(model, overrides);
  const rel = s && m && m.input > 0 ? { input: s.input / m.input, output: s.output / m.input } : UNKNOWN_SUMMARY_PRICES;
  // A summary may be as long as the call allows: judged at that size, its call is dear and its saving small.
  return { ...rel, summaryTokens: SUMMARY_MAX_TOKENS };
}
