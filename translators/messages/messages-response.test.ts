import { describe, expect, it } from 'vitest';
import { decodeMessagesResponse } from './decode-messages-response.ts';
import { encodeMessagesResponse } from './encode-messages-response.ts';
import { decodeMessagesError, encodeMessagesError } from './messages-errors.ts';

const recorded = {
  id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x',
  content: [
    { type: 'thinking', thinking: '…', signature: 'Es…' },
    { type: 'text', text: 'Checking.' },
    { type: 'tool_use', id: 'toolu_1', name: 'get_w', input: { city: 'Oslo' } },
  ],
  stop_reason: 'tool_use', stop_sequence: null,
  usage: { input_tokens: 50, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 40, output_tokens_details: { thinking_tokens: 12 } },
};

describe('messages responses', () => {
  it('decodes parts, stop reason and usage', () => {
    const reply = decodeMessagesResponse(recorded);
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.usage).toEqual({ source: 'reported', inputTokens: 50, cacheWriteTokens: 0, cacheReadTokens: 100, outputTokens: 40, reasoningTokens: 12 });
    expect(reply.parts[2]).toEqual({ type: 'tool_call', id: 'toolu_1', name: 'get_w', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' });
  });

  it('encodes back to the recorded shape', () => {
    expect(encodeMessagesResponse(decodeMessagesResponse(recorded))).toEqual(recorded);
  });

  it('sends foreign thinking with an empty signature and a refusal as text', () => {
    const out = encodeMessagesResponse({
      id: 'chatcmpl-1', model: 'gpt', stopReason: 'content_filter', usage: { source: 'unknown' },
      parts: [{ type: 'thinking', text: 'r' }, { type: 'refusal', text: 'No.' }],
    });
    expect(out.content).toEqual([{ type: 'thinking', thinking: 'r', signature: '' }, { type: 'text', text: 'No.' }]);
    expect(out.stop_reason).toBe('refusal');
    expect(out.usage).toEqual({ input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
  });
});

describe('messages errors', () => {
  it('decodes error types, 529 and retry-after', () => {
    expect(decodeMessagesError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }))
      .toEqual({ status: 529, type: 'overloaded', code: 'overloaded_error', message: 'Overloaded' });
    expect(decodeMessagesError(429, { type: 'error', error: { type: 'rate_limit_error', message: 'slow' } }, { 'retry-after': '12' }))
      .toMatchObject({ type: 'rate_limit', retryAfter: 12 });
    expect(decodeMessagesError(402, { type: 'error', error: { type: 'billing_error', message: 'pay' } })).toMatchObject({ type: 'permission', code: 'billing_error' });
    expect(decodeMessagesError(500, '<html>oops</html>')).toMatchObject({ status: 500, type: 'server', message: '<html>oops</html>' });
  });

  it('encodes with messages error types, 529 for overloaded and request_too_large for 413', () => {
    expect(encodeMessagesError({ status: 503, type: 'overloaded', message: 'busy' })).toEqual({
      status: 529, headers: {}, body: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } },
    });
    expect(encodeMessagesError({ status: 413, type: 'invalid_request', message: 'big' }).body.error.type).toBe('request_too_large');
    expect(encodeMessagesError({ status: 429, type: 'rate_limit', message: 'x', retryAfter: 3 }).headers).toEqual({ 'retry-after': '3' });
  });
});
