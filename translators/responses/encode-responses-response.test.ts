import { describe, expect, it } from 'vitest';
import { decodeResponsesResponse } from './decode-responses-response.ts';
import { encodeResponsesResponse } from './encode-responses-response.ts';

const JSON_RESPONSE = {
  id: 'resp_1', object: 'response', created_at: 1700000000, status: 'completed', model: 'gpt-5',
  output: [
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAA' },
    { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: '3C.', annotations: [] }] },
  ],
  usage: { input_tokens: 45, input_tokens_details: { cached_tokens: 5 }, output_tokens: 25, output_tokens_details: { reasoning_tokens: 10 }, total_tokens: 70 },
};

describe('decodeResponsesResponse', () => {
  it('decodes output items, usage and status', () => {
    expect(decodeResponsesResponse(JSON_RESPONSE)).toEqual({
      id: 'resp_1', model: 'gpt-5', created: 1700000000, stopReason: 'end',
      parts: [{ type: 'thinking', text: '', signature: 'gAAA', origin: 'responses', itemId: 'rs_1' }, { type: 'text', text: '3C.' }],
      usage: { inputTokens: 40, cacheReadTokens: 5, outputTokens: 25, reasoningTokens: 10, source: 'reported' },
    });
  });

  it('maps tool turns, incomplete reasons and failures', () => {
    const call = { ...JSON_RESPONSE, output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}' }] };
    expect(decodeResponsesResponse(call)).toMatchObject({ stopReason: 'tool_use', parts: [{ type: 'tool_call', id: 'call_1', name: 'f', arguments: {} }] });
    expect(decodeResponsesResponse({ ...JSON_RESPONSE, status: 'incomplete', incomplete_details: { reason: 'content_filter' } }).stopReason).toBe('content_filter');
    expect(decodeResponsesResponse({ ...JSON_RESPONSE, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }).stopReason).toBe('max_tokens');
    expect(decodeResponsesResponse({ ...JSON_RESPONSE, status: 'failed', usage: null }).stopReason).toBe('error');
    expect(decodeResponsesResponse({ ...JSON_RESPONSE, usage: null }).usage).toEqual({ source: 'unknown' });
  });
});

describe('encodeResponsesResponse', () => {
  it('encodes a reply of another style as a full response object', () => {
    const res = encodeResponsesResponse({
      id: 'msg_9', model: 'claude-x', created: 1, stopReason: 'max_tokens',
      parts: [{ type: 'text', text: 'a' }, { type: 'refusal', text: 'no' }, { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: { q: 1 }, argumentsText: '' }],
      usage: { inputTokens: 3, outputTokens: 4, source: 'reported' },
    });
    expect(res).toEqual({
      id: 'resp_msg_9', object: 'response', created_at: 1, status: 'incomplete', model: 'claude-x',
      output: [
        { type: 'message', id: 'msg_respmsg9_0', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'a', annotations: [], logprobs: [] }, { type: 'refusal', refusal: 'no' }] },
        { type: 'function_call', id: 'fc_respmsg9_2', call_id: 'toolu_1', name: 'f', arguments: '{"q":1}', status: 'completed' },
      ],
      usage: { input_tokens: 3, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 7 },
      error: null, incomplete_details: { reason: 'max_output_tokens' }, parallel_tool_calls: true, tool_choice: 'auto', tools: [],
      instructions: null, metadata: null, temperature: null, top_p: null,
    });
  });

  it('round-trips a responses answer', () => {
    const back = decodeResponsesResponse(encodeResponsesResponse(decodeResponsesResponse(JSON_RESPONSE)));
    expect(back).toEqual(decodeResponsesResponse(JSON_RESPONSE));
  });
});
