// `:countTokens` answer: `{totalTokens}` (the gateway counts locally when the upstream is of another style).
// @see https://ai.google.dev/api/tokens#method:-models.counttokens

import type { GenerativeCountTokensResponse } from './types.ts';

export function encodeGenerativeCountTokens(n: number): GenerativeCountTokensResponse {
  return { totalTokens: n };
}
