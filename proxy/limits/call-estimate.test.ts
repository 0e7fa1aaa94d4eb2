import { describe, expect, it } from 'vitest';
import { estimateCall, requestedMaxOutput } from './call-estimate.ts';

describe('requestedMaxOutput', () => {
  it('reads each style its own field', () => {
    expect(requestedMaxOutput('chat', { max_completion_tokens: 300, max_tokens: 10 })).toBe(300);
    expect(requestedMaxOutput('chat', { max_tokens: 10 })).toBe(10);
    expect(requestedMaxOutput('messages', { max_tokens: 1024 })).toBe(1024);
    expect(requestedMaxOutput('generative', { generationConfig: { maxOutputTokens: 77 } })).toBe(77);
    expect(requestedMaxOutput('generative', { generation_config: { max_output_tokens: 78 } })).toBe(78);
    expect(requestedMaxOutput('responses', { max_output_tokens: 5 })).toBe(5);
  });

  it('ignores values that are not positive numbers', () => {
    expect(requestedMaxOutput('chat', { max_tokens: -5 })).toBeUndefined();
    expect(requestedMaxOutput('chat', { max_tokens: '100' })).toBeUndefined();
    expect(requestedMaxOutput('messages', {})).toBeUndefined();
    expect(requestedMaxOutput('chat', { max_tokens: 1e12 })).toBe(1_000_000);
  });
});

describe('estimateCall', () => {
  it('reserves prompt + max output, priced at the dearest candidate', () => {
    const e = estimateCall('chat', { max_tokens: 1000 }, 500, ['gpt-4o-mini', 'gpt-4o'], []);
    expect(e).toMatchObject({ tokens: 1500, inputTokens: 500, outputTokens: 1000, unpriced: [] });
    // gpt-4o: 2.5 in / 10 out per million.
    expect(e.dollars).toBeCloseTo((500 * 2.5 + 1000 * 10) / 1e6, 9);
  });

  it('falls back to the default max output of the model and uses price overrides', () => {
    const e = estimateCall('chat', {}, 100, ['claude-sonnet-4-6'], [{ model: 'claude-*', input: 1, output: 1, cacheRead: 1, cacheWrite: 1 }]);
    expect(e.outputTokens).toBe(32000);
    expect(e.dollars).toBeCloseTo(32100 / 1e6, 9);
  });

  it('names candidates without a price, and prices nothing when no dollar budget asks for it', () => {
    expect(estimateCall('chat', { max_tokens: 1 }, 1, ['my-local-model'], []).unpriced).toEqual(['my-local-model']);
    expect(estimateCall('chat', { max_tokens: 1 }, 1, ['my-local-model'], null)).toMatchObject({ dollars: 0, unpriced: [] });
  });
});
