import { describe, expect, it } from 'vitest';
import { summaryCallPrices, UNKNOWN_SUMMARY_PRICES } from './summary-prices.ts';
import { SUMMARY_MAX_TOKENS } from './summary-prompt.ts';

describe('summaryCallPrices', () => {
  it('prices the summary model against the input of the conversation\'s model, list prices and overrides', () => {
    // gpt-4o-mini ($0.15, $0.60) against claude-sonnet-4-6 ($3 input).
    const p = summaryCallPrices('gpt-4o-mini', 'claude-sonnet-4-6-20260101', []);
    expect(p.input).toBeCloseTo(0.05);
    expect(p.output).toBeCloseTo(0.2);
    expect(p.summaryTokens).toBe(SUMMARY_MAX_TOKENS);
    // An instance override wins.
    const o = summaryCallPrices('gpt-4o-mini', 'claude-sonnet-4-6', [{ model: 'claude-*', input: 1.5, output: 7.5, cacheRead: 0.15, cacheWrite: 1.875 }]);
    expect(o.input).toBeCloseTo(0.1);
    expect(o.output).toBeCloseTo(0.4);
  });

  it('takes the summary model as dear as the conversation\'s, output at 8×, when a price is unknown', () => {
    expect(summaryCallPrices('my-local-model', 'claude-sonnet-4-6', [])).toMatchObject(UNKNOWN_SUMMARY_PRICES);
    expect(summaryCallPrices('gpt-4o-mini', 'my-local-model', [])).toMatchObject(UNKNOWN_SUMMARY_PRICES);
    expect(summaryCallPrices('gpt-4o-mini', 'free', [{ model: 'free', input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }])).toMatchObject({ input: 1, output: 8 });
  });
});
