import { describe, expect, it } from 'vitest';
import { LIST_PRICES } from './list-prices.ts';
import { costOf, listPriceOf, priceOf, type PriceOverride } from './price-of.ts';

describe('list prices', () => {
  it('match dated, suffixed and Vertex-style ids to their model', () => {
    expect(listPriceOf('claude-sonnet-4-5-20250929')).toMatchObject({ matched: 'claude-sonnet-4-5', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(listPriceOf('claude-sonnet-4-5@20250929')?.matched).toBe('claude-sonnet-4-5');
    expect(listPriceOf('gpt-4o-2024-11-20')?.matched).toBe('gpt-4o');
    expect(listPriceOf('gemini-2.5-flash-preview-09-2025')?.matched).toBe('gemini-2.5-flash');
    expect(listPriceOf('models/gemini-2.5-pro')?.matched).toBe('gemini-2.5-pro');
    expect(listPriceOf('gemini-3-pro-preview')?.matched).toBe('gemini-3-pro');
  });

  it('prefer the most specific entry', () => {
    expect(listPriceOf('gpt-4o-mini-2024-07-18')?.matched).toBe('gpt-4o-mini');
    expect(listPriceOf('gpt-4o-2024-05-13')).toMatchObject({ input: 5, output: 15 });
    expect(listPriceOf('gpt-5-mini')?.matched).toBe('gpt-5-mini');
    expect(listPriceOf('gpt-5.1-codex-mini')?.matched).toBe('gpt-5.1-codex-mini');
    expect(listPriceOf('gemini-2.5-flash-lite')?.matched).toBe('gemini-2.5-flash-lite');
    expect(listPriceOf('o3-mini')?.matched).toBe('o3-mini');
  });

  it('tell Claude Opus 4.0 from later Opus 4 releases', () => {
    expect(listPriceOf('claude-opus-4-20250514')).toMatchObject({ matched: 'claude-opus-4-0', input: 15, output: 75 });
    expect(listPriceOf('claude-opus-4-0')?.input).toBe(15);
    expect(listPriceOf('claude-opus-4-1-20250805')).toMatchObject({ matched: 'claude-opus-4-1', input: 15 });
    expect(listPriceOf('claude-opus-4-5-20251101')).toMatchObject({ matched: 'claude-opus-4-5', input: 5 });
  });

  it('match -latest, Gemini version and preview suffixes', () => {
    expect(listPriceOf('claude-3-7-sonnet-latest')?.matched).toBe('claude-3-7-sonnet');
    expect(listPriceOf('gemini-2.0-flash-001')).toBeNull();
    expect(listPriceOf('gemini-2.5-flash-001')?.matched).toBe('gemini-2.5-flash');
    expect(listPriceOf('gemini-2.5-pro-exp-0325')?.matched).toBe('gemini-2.5-pro');
    expect(listPriceOf('claude-sonnet-4-20250514')).toMatchObject({ matched: 'claude-sonnet-4-0', input: 3 });
  });

  it('price nothing by resemblance: another name is another model', () => {
    expect(listPriceOf('gpt-4o-nope')).toBeNull();
    expect(listPriceOf('gpt-5.1-codex-nano')).toBeNull();
    expect(listPriceOf('claude-opus-4-7')).toBeNull();
    expect(listPriceOf('gemini-3-pro-image-preview')).toBeNull();
    expect(listPriceOf('gpt-4o-audio-preview')).toBeNull();
  });

  it('know nothing of unknown models', () => {
    expect(listPriceOf('my-local-llama')).toBeNull();
  });

  it('are all non-negative numbers', () => {
    for (const p of LIST_PRICES) for (const v of [p.input, p.output, p.cacheRead, p.cacheWrite]) expect(v).toBeGreaterThanOrEqual(0);
  });
});

describe('priceOf with overrides', () => {
  const overrides: PriceOverride[] = [
    { model: 'claude-*', input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.5 },
    { model: 'claude-haiku-4-5', input: 0.5, output: 1, cacheRead: 0, cacheWrite: 0.5 },
    { model: 'local-*', input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  ];

  it('lets an override win over the list price, the most specific first', () => {
    expect(priceOf('claude-sonnet-4-5', overrides)).toMatchObject({ source: 'override', matched: 'claude-*', input: 1 });
    expect(priceOf('claude-haiku-4-5', overrides)).toMatchObject({ source: 'override', matched: 'claude-haiku-4-5' });
    expect(priceOf('local-llama', overrides)).toMatchObject({ source: 'override', input: 0 });
    expect(priceOf('gpt-5', overrides)).toMatchObject({ source: 'list', matched: 'gpt-5' });
    expect(priceOf('unknown', overrides)).toBeNull();
  });
});

describe('costOf', () => {
  it('prices each token kind per million', () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    expect(costOf({ inputTokens: 1_000_000 }, price)).toBe(3);
    expect(costOf({ inputTokens: 1000, outputTokens: 500, cacheReadTokens: 10_000, cacheWriteTokens: 2000 }, price)).toBeCloseTo(0.003 + 0.0075 + 0.003 + 0.0075, 12);
    expect(costOf({ outputTokens: 1 }, price)).toBe(0.000015);
  });

  it('is 0 for an unknown price and treats missing counts as 0', () => {
    expect(costOf({ inputTokens: 100 }, null)).toBe(0);
    expect(costOf({}, { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 })).toBe(0);
  });
});
