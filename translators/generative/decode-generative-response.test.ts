import { describe, expect, it } from 'vitest';
import { decodeGenerativeResponse } from './decode-generative-response.ts';

describe('decodeGenerativeResponse', () => {
  it('decodes text, usage and model', () => {
    const reply = decodeGenerativeResponse({
      candidates: [{ index: 0, content: { role: 'model', parts: [{ text: '3C.' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 29, thoughtsTokenCount: 256, totalTokenCount: 294, cachedContentTokenCount: 4 },
      modelVersion: 'gemini-x', responseId: 'dX6L',
    });
    expect(reply).toEqual({
      id: 'dX6L', model: 'gemini-x', parts: [{ type: 'text', text: '3C.' }], stopReason: 'end',
      usage: { inputTokens: 5, cacheReadTokens: 4, outputTokens: 285, reasoningTokens: 256, source: 'reported' },
    });
  });

  it('gives calls without ids distinct deterministic ids and stops with tool_use', () => {
    const json = {
      candidates: [{ content: { role: 'model', parts: [
        { functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'sig' },
        { functionCall: { name: 'f', args: { a: 2 } } },
      ] }, finishReason: 'STOP' }],
      responseId: 'r1',
    };
    const reply = decodeGenerativeResponse(json);
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.parts).toEqual([
      { type: 'tool_call', id: 'gcall_r1_0', name: 'f', arguments: { a: 1 }, argumentsText: '{"a":1}', signature: 'sig', origin: 'generative' },
      { type: 'tool_call', id: 'gcall_r1_1', name: 'f', arguments: { a: 2 }, argumentsText: '{"a":2}' },
    ]);
    expect(decodeGenerativeResponse(json).parts).toEqual(reply.parts);
  });

  it('treats a blocked prompt as a content filter and an empty STOP as an error', () => {
    expect(decodeGenerativeResponse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 3 } }))
      .toMatchObject({ parts: [], stopReason: 'content_filter', usage: { inputTokens: 3, outputTokens: 0 } });
    expect(decodeGenerativeResponse({ candidates: [{ content: { parts: [{ text: '' }] }, finishReason: 'STOP' }] }).stopReason).toBe('error');
    expect(decodeGenerativeResponse({ candidates: [{ finishReason: 'MAX_TOKENS' }] }).stopReason).toBe('max_tokens');
    expect(decodeGenerativeResponse({ candidates: [{ finishReason: 'MALFORMED_FUNCTION_CALL' }] }).stopReason).toBe('error');
  });

  it('reports unknown usage when the upstream sent none', () => {
    expect(decodeGenerativeResponse({ candidates: [{ content: { parts: [{ text: 'a' }] }, finishReason: 'STOP' }] }).usage).toEqual({ source: 'unknown' });
  });
});
