import { describe, expect, it } from 'vitest';
import { convertGenerativeUsage, toGenerativeUsage } from './convert-generative-usage.ts';
import { GENERATIVE_FINISH_REASONS, mapGenerativeFinishReason } from './map-generative-finish-reason.ts';

describe('generative usage', () => {
  it('subtracts cached tokens from the prompt and adds thoughts to the output', () => {
    expect(convertGenerativeUsage({ promptTokenCount: 9, candidatesTokenCount: 29, thoughtsTokenCount: 256, totalTokenCount: 294 }))
      .toEqual({ inputTokens: 9, outputTokens: 285, cacheReadTokens: 0, reasoningTokens: 256, source: 'reported' });
    expect(convertGenerativeUsage({ promptTokenCount: 100, cachedContentTokenCount: 60, candidatesTokenCount: 1 }))
      .toMatchObject({ inputTokens: 40, cacheReadTokens: 60 });
  });

  it('is unknown without counts (early chunks carry only trafficType) and never invents zeros', () => {
    expect(convertGenerativeUsage({ trafficType: 'ON_DEMAND' })).toEqual({ source: 'unknown' });
    expect(convertGenerativeUsage(undefined)).toEqual({ source: 'unknown' });
    expect(toGenerativeUsage({ source: 'unknown' })).toBeUndefined();
  });

  it('encodes back with candidates excluding thoughts and a consistent total', () => {
    const meta = toGenerativeUsage({ inputTokens: 5, cacheReadTokens: 4, outputTokens: 285, reasoningTokens: 256, source: 'reported' });
    expect(meta).toEqual({ promptTokenCount: 9, cachedContentTokenCount: 4, candidatesTokenCount: 29, thoughtsTokenCount: 256, totalTokenCount: 294 });
    expect(convertGenerativeUsage(meta)).toEqual({ inputTokens: 5, cacheReadTokens: 4, outputTokens: 285, reasoningTokens: 256, source: 'reported' });
  });
});

describe('generative finish reasons', () => {
  it('maps every reason and refines STOP by what the answer held', () => {
    expect(Object.keys(GENERATIVE_FINISH_REASONS)).toHaveLength(20);
    expect(mapGenerativeFinishReason('STOP', false, false)).toBe('end');
    expect(mapGenerativeFinishReason('STOP', true, false)).toBe('tool_use');
    expect(mapGenerativeFinishReason('STOP', false, true)).toBe('error');
    expect(mapGenerativeFinishReason('RECITATION', false, false)).toBe('content_filter');
    expect(mapGenerativeFinishReason('SOMETHING_NEW', false, false)).toBe('end');
  });
});
