import { describe, expect, it } from 'vitest';
import { decodeGenerativeResponse } from './decode-generative-response.ts';
import { encodeGenerativeResponse } from './encode-generative-response.ts';

describe('encodeGenerativeResponse', () => {
  it('encodes parts, finish reason and usage of a reply from another style', () => {
    const res = encodeGenerativeResponse({
      id: 'msg_1', model: 'claude-x', stopReason: 'tool_use',
      parts: [
        { type: 'thinking', text: 'hmm', signature: 'anthropic', origin: 'messages' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'toolu_1', name: 'get_w', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
      ],
      usage: { inputTokens: 50, cacheReadTokens: 100, cacheWriteTokens: 0, outputTokens: 40, reasoningTokens: 12, source: 'reported' },
    });
    expect(res).toEqual({
      candidates: [{
        content: { role: 'model', parts: [
          { text: 'hmm', thought: true },
          { text: 'Checking.' },
          { functionCall: { id: 'toolu_1', name: 'get_w', args: { city: 'Oslo' } } },
        ] },
        finishReason: 'STOP', index: 0,
      }],
      usageMetadata: { promptTokenCount: 150, candidatesTokenCount: 28, totalTokenCount: 190, cachedContentTokenCount: 100, thoughtsTokenCount: 12 },
      modelVersion: 'claude-x', responseId: 'msg_1',
    });
  });

  it('maps limit and filter stops and keeps an empty text part when there is no content', () => {
    const res = encodeGenerativeResponse({ id: 'a', model: 'm', parts: [], stopReason: 'max_tokens', usage: { source: 'unknown' } });
    expect(res.candidates?.[0]).toEqual({ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'MAX_TOKENS', index: 0 });
    expect(res.usageMetadata).toBeUndefined();
    expect(encodeGenerativeResponse({ id: 'a', model: 'm', parts: [], stopReason: 'refusal', usage: { source: 'unknown' } }).candidates?.[0].finishReason).toBe('SAFETY');
  });

  it('round-trips a Gemini response with signatures', () => {
    const original = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'a', thought: true }, { text: 'b', thoughtSignature: 's1' }, { functionCall: { id: 'c1', name: 'f', args: {} }, thoughtSignature: 's2' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 17, thoughtsTokenCount: 2 },
      modelVersion: 'g', responseId: 'r',
    };
    expect(encodeGenerativeResponse(decodeGenerativeResponse(original))).toEqual(original);
  });
});
