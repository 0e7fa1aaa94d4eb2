/**
 * What a call costs: the price of a model (an instance override, else the list price in list-prices.ts) and the
 * cost of a usage record in USD. Prices are USD per million tokens.
 *
 * Overrides always win over list prices; among overrides the most specific matching pattern wins (an exact id beats
 * `claude-*`, which beats `*`). List prices match exactly, version suffixes aside (list-prices.ts). Gemini's
 * `models/` prefix is ignored.
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

const LIST_BY_ID = new Map<string, ListPrice>();
for (const p of LIST_PRICES) for (const id of [p.model, ...(p.aliases ?? [])]) LIST_BY_ID.set(id, p);

/** One version suffix at the end of an id: a date, `-latest`, Vertex's `@…`, Gemini's `-001`, `-preview…`, `-exp…`. */
const VERSION_SUFFIX = /(?:-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{3}|latest|preview(?:-\d{2}-\d{2,4})?|exp(?:-\d{4})?)|@[\w.-]+)$/;

function normalise(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

const priceFields = (p: Price): Price => ({ input: p.input, output: p.output, cacheRead: p.cacheRead, cacheWrite: p.cacheWrite });

/** The list entry of an id: exact, else with its version suffixes taken off one by one. */
function listEntryOf(id: string): ListPrice | undefined {
  for (let candidate = id; ;) {
    const entry = LIST_BY_ID.get(candidate);
    if (entry) return entry;
    const shorter = candidate.replace(VERSION_SUFFIX, '');
    if (shorter === candidate || shorter === '') return undefined;
    candidate = shorter;
  }
}

/** The list price of `model`, or null when the table has none. */
export function listPriceOf(model: string): ResolvedPrice | null {
  const entry = listEntryOf(normalise(model));
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
