/**
 * The models this instance knows of, to warn (not refuse) when a key's allowed model, an alias entry or a price
 * override matches none of them: a typo such as `claude-sonet-*` otherwise fails silently later. Known = the list
 * prices, alias names, the models accounts name and the model lists fetched from providers.
 */
import type { Queryable } from '../../core/db/db.ts';
import { isPattern, matchesModel } from '../../core/ai/model-pattern.ts';
import { LIST_PRICES } from '../../core/ai/list-prices.ts';
import { listPriceOf } from '../../core/ai/price-of.ts';

export interface KnownModels {
  ids: Set<string>;
  /** Patterns accounts serve (`llama-*`; a bare `*` says nothing and is left out): an id they match is known. */
  accountPatterns: string[];
}

export async function loadKnownModels(db: Queryable): Promise<KnownModels> {
  const ids = new Set<string>(LIST_PRICES.map((p) => p.model));
  const accountPatterns: string[] = [];
  // Alias names only: the models an alias lists are what is being checked, not evidence.
  const aliases = await db.query<{ name: string }>('SELECT name FROM model_aliases');
  for (const a of aliases.rows) ids.add(a.name);
  const accounts = await db.query<{ models: string[]; model_list: unknown }>('SELECT models, model_list FROM provider_accounts');
  for (const a of accounts.rows) {
    for (const m of a.models) {
      if (!isPattern(m)) ids.add(m);
      else if (m.replaceAll('*', '') !== '') accountPatterns.push(m);
    }
    if (Array.isArray(a.model_list)) for (const m of a.model_list) if (typeof m === 'string') ids.add(m);
  }
  return { ids, accountPatterns };
}

/** Whether `entry` (an id or a pattern) matches some known model. */
export function isKnown(entry: string, known: KnownModels): boolean {
  if (isPattern(entry)) {
    for (const id of known.ids) if (matchesModel(entry, id)) return true;
    return known.accountPatterns.some((p) => matchesModel(entry, p));
  }
  return known.ids.has(entry) || listPriceOf(entry) !== null || known.accountPatterns.some((p) => matchesModel(p, entry));
}

/** One warning sentence per entry that matches no known model. */
export function unknownModelWarnings(entries: readonly string[], known: KnownModels, field: string): string[] {
  return entries
    .filter((e) => !isKnown(e, known))
    .map((e) => `"${e}" in "${field}" matches no model this instance knows of (list prices, aliases, account models); check the spelling.`);
}
