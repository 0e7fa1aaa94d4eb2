/**
 * `max_tokens` is required in the messages style; requests from the other styles often have none (their servers
 * default to the model's maximum). This table is the one place that decides what is sent then (reference §D4).
 *
 * Values: the model family's output maximum, capped at 32 000 (what CLIProxyAPI sends) so that a default never asks
 * for more than a current model allows nor reserves a very large output-rate budget upstream. First match wins.
 */

const TABLE: readonly (readonly [RegExp, number])[] = [
  [/claude-3-(opus|sonnet|haiku)/, 4096], // Claude 3: 4 096 output tokens
  [/claude-3-5-/, 8192], // Claude 3.5: 8 192
  [/claude-3-7-/, 32000], // 64 000 possible
  [/claude-(opus|sonnet|haiku)-4/, 32000], // Claude 4 family: 32 000 (Opus 4/4.1) to 64 000 and more
  [/claude-/, 32000], // newer families
];

/** Used for a model this table does not know (for example a messages-compatible server's own model). */
export const FALLBACK_MAX_TOKENS = 8192;

export function defaultMaxTokens(model: string): number {
  const m = model.toLowerCase();
  for (const [pattern, tokens] of TABLE) if (pattern.test(m)) return tokens;
  return FALLBACK_MAX_TOKENS;
}

/** Claude 3 and 3.5 models answer 400 to a `thinking` field; every later family accepts it. */
export function supportsThinking(model: string): boolean {
  return !/claude-3-(5-)?(opus|sonnet|haiku)/.test(model.toLowerCase());
}

/** Thinking budgets for a reasoning effort (CLIProxyAPI's table, reference §D1); the minimum budget is 1 024. */
export const THINKING_BUDGET = {
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
  max: 32768,
} as const satisfies Record<'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max', number>;
