import { describe, expect, it } from 'vitest';
import { mergeUsage, totalInputTokens } from './usage.ts';

describe('usage', () => {
  it('merges usage with the last value winning and totals the prompt', () => {
    const u = mergeUsage({ source: 'reported', inputTokens: 43, outputTokens: 1, cacheReadTokens: 5 }, { source: 'reported', inputTokens: 61, outputTokens: 12 });
    expect(u).toEqual({ source: 'reported', inputTokens: 61, outputTokens: 12, cacheReadTokens: 5 });
    expect(totalInputTokens(u)).toBe(66);
    expect(totalInputTokens({ source: 'unknown' })).toBeUndefined();
  });
});
