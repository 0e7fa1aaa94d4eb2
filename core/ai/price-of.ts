/**
 * What a call costs: the price of a model (an instance override, else the list price in list-prices.ts) and the
 * cost of a usage record in USD. Prices are USD per million tokens.
 *
 * Overrides always win over list prices; among overrides, and among list prices, the most specific matching pattern
 * wins (an exact id beats `claude-*`, which beats `*`). Gemini's `models/` prefix is ignored.
 */
import { bestMatch } from './model-pattern.ts';
import { LIST_PRICES, type ListPrice } from './list-prices.ts';

export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** A row of model_prices: `model` is an exact id or a `*` pattern. */
export interface PriceOverride extends Price {
  model: string;
}

export interface ResolvedPrice extends Price {
  /** The list entry or override key that matched. */
  matched: string;
  source: 'list' | 'override';
}

/** Token counts of one call, named as in the translators' Usage (undefined counts as 0). */
export interface TokenCounts {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

const LIST_BY_PATTERN = new Map<string, ListPrice>();
for (const p of LIST_PRICES) {
  for (const pattern of p.match ?? [p.model, `${p.model}-*`, `${p.model}@*`]) LIST_BY_PATTERN.set(pattern, p);
}
const listMemo = new Map<string, ListPrice | null>();

function normalise(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

const priceFields = (p: Price): Price => ({ input: p.input, output: p.output, cacheRead: p.cacheRead, cacheWrite: p.cacheWrite });

/** The list price of `model`, or null when the table has none. */
export function listPriceOf(model: string): ResolvedPrice | null {
  const id = normalise(model);
  let entry = listMemo.get(id);
  if (entry === undefined) {
    const pattern = bestMatch(LIST_BY_PATTERN.keys(), id);
    entry = pattern === undefined ? null : (LIST_BY_PATTERN.get(pattern) ?? null);
    if (listMemo.size > 5_000) listMemo.clear();
    listMemo.set(id, entry);
  }
  return entry ? { ...priceFields(entry), matched: entry.model, source: 'list' } : null;
}

/** The effective price of `model`: the most specific matching override, else the list price, else null (unknown). */
export function priceOf(model: string, overrides: readonly PriceOverride[]): ResolvedPrice | null {
  const id = normalise(model);
  if (overrides.length > 0) {
    const key = bestMatch(overrides.map((o) => o.model), id);
    const o = key === undefined ? undefined : overrides.find((x) => x.model === key);
    if (o) return { ...priceFields(o), matched: o.model, source: 'override' };
  }
  return listPriceOf(id);
}

/** The cost of `usage` at `price` in USD; 0 when the price is unknown (null). */
export function costOf(usage: TokenCounts, price: Price | null): number {
  if (!price) return 0;
  const micro =
    (usage.inputTokens ?? 0) * price.input +
    (usage.outputTokens ?? 0) * price.output +
    (usage.cacheReadTokens ?? 0) * price.cacheRead +
    (usage.cacheWriteTokens ?? 0) * price.cacheWrite;
  // Rounded to 1e-9 USD so that sums of many records do not show float noise.
  return Math.round(micro / 1e-3) / 1e9;
}
