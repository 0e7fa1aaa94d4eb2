/**
 * The providers' current models this instance knows of without asking anyone: every model of the list-price table
 * (list-prices.ts) with its provider and, where the provider publishes it, its context window in tokens. Model lists
 * (`GET /v1/models` and the other styles') use it for accounts that name no models and whose provider's list could
 * not be read, and to show context sizes.
 */
import { LIST_PRICES } from './list-prices.ts';

export type CatalogProvider = 'anthropic' | 'openai' | 'gemini';

export interface CatalogModel {
  id: string;
  provider: CatalogProvider;
  /** Input context window in tokens, when published. */
  contextWindow?: number;
}

const CONTEXT: Record<string, number> = {
  'gpt-4o': 128_000, 'gpt-4o-2024-05-13': 128_000, 'gpt-4o-mini': 128_000,
  'gpt-4.1': 1_047_576, 'gpt-4.1-mini': 1_047_576, 'gpt-4.1-nano': 1_047_576,
  'gpt-5': 400_000, 'gpt-5-mini': 400_000, 'gpt-5-nano': 400_000, 'gpt-5-pro': 400_000, 'gpt-5-codex': 400_000,
  'gpt-5.1': 400_000, 'gpt-5.1-codex': 400_000, 'gpt-5.1-codex-mini': 400_000, 'gpt-5.2': 400_000, 'gpt-5.2-pro': 400_000,
  'o1': 200_000, 'o1-mini': 128_000, 'o1-pro': 200_000, 'o3': 200_000, 'o3-mini': 200_000, 'o3-pro': 200_000, 'o4-mini': 200_000,
  'gemini-2.5-pro': 1_048_576, 'gemini-2.5-flash': 1_048_576, 'gemini-2.5-flash-lite': 1_048_576,
  'gemini-3-pro': 1_048_576, 'gemini-3-flash': 1_048_576,
};

function providerOf(id: string): CatalogProvider {
  if (id.startsWith('claude-')) return 'anthropic';
  if (id.startsWith('gemini-')) return 'gemini';
  return 'openai';
}

export const MODEL_CATALOG: readonly CatalogModel[] = LIST_PRICES.map((p) => {
  // Every Claude model of the table has a 200k window (longer ones are a beta the caller asks for).
  const contextWindow = CONTEXT[p.model] ?? (p.model.startsWith('claude-') ? 200_000 : undefined);
  return { id: p.model, provider: providerOf(p.model), ...(contextWindow !== undefined ? { contextWindow } : {}) };
});

const BY_ID = new Map(MODEL_CATALOG.map((m) => [m.id, m]));

export function catalogModel(id: string): CatalogModel | undefined {
  return BY_ID.get(id);
}
