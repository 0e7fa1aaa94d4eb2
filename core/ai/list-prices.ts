/**
 * List prices of the providers' current models, in USD per million tokens, kept in the repository as data.
 *
 * These are LIST prices (standard tier, on-demand, prompts up to 200k tokens where a provider has a long-context
 * tier), as published by Anthropic, OpenAI and Google on their pricing pages, as of 2026-02-15. They are not what a
 * given organisation pays (discounts, batch, priority tiers, regional endpoints): an instance corrects them with
 * overrides (PUT /api/v1/prices/{model}), which always win. Update this table when a provider changes a price.
 *
 * Columns:
 * - input: prompt tokens neither read from nor written to the prompt cache;
 * - output: generated tokens, reasoning included;
 * - cacheRead: prompt tokens read from the cache;
 * - cacheWrite: prompt tokens written to the cache. Anthropic bills 5-minute cache writes at 1.25× input (1-hour
 *   writes at 2× are not told apart in usage, so they are priced as 5-minute writes); OpenAI and Google charge no
 *   write premium, so their cacheWrite equals input (Google's hourly storage fee for explicit caches is not a
 *   per-token price and is left out).
 *
 * Matching (price-of.ts) is exact: an id is priced by the entry of that id, or of one of its `aliases`, after its
 * version suffixes are taken off: dates (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-11-20`), `-latest`, Vertex
 * AI's `@20250929`, Gemini's `-001`, `-preview`, `-preview-09-2025`, `-exp`. Anything else is unpriced and says so
 * (`gpt-4o-nope` is not `gpt-4o`, `claude-opus-4-7` is not some other Opus): a new model gets its price from a new
 * row here or from an instance override, never from a guess.
 */

export interface ListPrice {
  /** The model id shown in GET /api/v1/prices. */
  model: string;
  /** Other exact ids of the same model (before version suffixes are taken off). */
  aliases?: readonly string[];
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const anthropic = (model: string, input: number, output: number, aliases?: string[]): ListPrice => ({
  model, input, output, cacheRead: input / 10, cacheWrite: input * 1.25, ...(aliases ? { aliases } : {}),
});
const flat = (model: string, input: number, output: number, cacheRead: number): ListPrice => ({
  model, input, output, cacheRead, cacheWrite: input,
});

export const LIST_PRICES_AS_OF = '2026-02-15';

export const LIST_PRICES: readonly ListPrice[] = [
  // Anthropic Claude (cache read 0.1× input, 5-minute cache write 1.25× input).
  anthropic('claude-opus-4-6', 5, 25),
  anthropic('claude-opus-4-5', 5, 25),
  anthropic('claude-opus-4-1', 15, 75),
  anthropic('claude-opus-4-0', 15, 75, ['claude-opus-4']),
  anthropic('claude-sonnet-4-6', 3, 15),
  anthropic('claude-sonnet-4-5', 3, 15),
  anthropic('claude-sonnet-4-0', 3, 15, ['claude-sonnet-4']),
  anthropic('claude-haiku-4-5', 1, 5),
  anthropic('claude-3-7-sonnet', 3, 15),
  anthropic('claude-3-5-haiku', 0.8, 4),

  // OpenAI (cached input as listed; no cache-write premium).
  flat('gpt-4o', 2.5, 10, 1.25),
  flat('gpt-4o-2024-05-13', 5, 15, 5),
  flat('gpt-4o-mini', 0.15, 0.6, 0.075),
  flat('gpt-4.1', 2, 8, 0.5),
  flat('gpt-4.1-mini', 0.4, 1.6, 0.1),
  flat('gpt-4.1-nano', 0.1, 0.4, 0.025),
  flat('gpt-5', 1.25, 10, 0.125),
  flat('gpt-5-mini', 0.25, 2, 0.025),
  flat('gpt-5-nano', 0.05, 0.4, 0.005),
  flat('gpt-5-pro', 15, 120, 15),
  flat('gpt-5-codex', 1.25, 10, 0.125),
  flat('gpt-5.1', 1.25, 10, 0.125),
  flat('gpt-5.1-codex', 1.25, 10, 0.125),
  flat('gpt-5.1-codex-mini', 0.25, 2, 0.025),
  flat('gpt-5.2', 1.75, 14, 0.175),
  flat('gpt-5.2-pro', 21, 168, 21),
  flat('o1', 15, 60, 7.5),
  flat('o1-mini', 1.1, 4.4, 0.55),
  flat('o1-pro', 150, 600, 150),
  flat('o3', 2, 8, 0.5),
  flat('o3-mini', 1.1, 4.4, 0.55),
  flat('o3-pro', 20, 80, 20),
  flat('o4-mini', 1.1, 4.4, 0.275),

  // Google Gemini (prompts up to 200k tokens; context-cache reads as listed).
  flat('gemini-2.5-pro', 1.25, 10, 0.125),
  flat('gemini-2.5-flash', 0.3, 2.5, 0.03),
  flat('gemini-2.5-flash-lite', 0.1, 0.4, 0.01),
  flat('gemini-3-pro', 2, 12, 0.2),
  flat('gemini-3-flash', 0.5, 3, 0.05),
];
