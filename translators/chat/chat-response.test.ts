import { describe, expect, it } from 'vitest';
import { decodeChatResponse } from './decode-chat-response.ts';
import { encodeChatResponse } from './encode-chat-response.ts';
import { decodeChatUsage, encodeChatUsage } from './chat-usage.ts';
import { decodeChatFinishReason, encodeChatFinishReason } from './chat-stop-reason.ts';

const recorded = {
  id: 'chatcmpl-1', object: 'chat.completion', created: 1700000000, model: 'gpt-4.1',
  choices: [{ index: 0, finish_reason: 'tool_calls', logprobs: null, message: {
    role: 'assistant', content: 'Checking.', refusal: null,
    tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_w', arguments: '{"city":"Oslo"}' } }],
  } }],
  usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } },
};

describe('chat responses', () => {
  it('decodes text, tool calls, stop reason and usage (input without cached tokens)', () => {
    const reply = decodeChatResponse(recorded);
    expect(reply).toEqual({
      id: 'chatcmpl-1', model: 'gpt-4.1', created: 1700000000, stopReason: 'tool_use',
      parts: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'call_a', name: 'get_w', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
      ],
      usage: { source: 'reported', inputTokens: 16, cacheReadTokens: 4, outputTokens: 9, reasoningTokens: 2 },
    });
  });

  it('encodes back to the same wire shape', () => {
    const out = encodeChatResponse(decodeChatResponse(recorded));
    expect(out.choices[0]).toEqual(recorded.choices[0]);
    expect(out.usage).toEqual(recorded.usage);
  });

  it('treats a refusal as a refusal stop', () => {
    const reply = decodeChatResponse({ id: 'r', model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: null, refusal: 'No.' } }] });
    expect(reply.parts).toEqual([{ type: 'refusal', text: 'No.' }]);
    expect(reply.stopReason).toBe('refusal');
    expect(reply.usage).toEqual({ source: 'unknown' });
  });

  it('reads cache hits and writes reported the non-standard ways', () => {
    expect(decodeChatUsage({ prompt_tokens: 100, completion_tokens: 1, total_tokens: 101, prompt_cache_hit_tokens: 60 })).toMatchObject({ inputTokens: 40, cacheReadTokens: 60 });
    expect(decodeChatUsage({ prompt_tokens: 100, completion_tokens: 1, total_tokens: 101, cache_creation_input_tokens: 30, prompt_tokens_details: { cached_tokens: 50 } }))
      .toMatchObject({ inputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 30 });
    expect(encodeChatUsage({ source: 'reported', inputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 30, outputTokens: 1 }).prompt_tokens).toBe(100);
  });

  it('maps every stop reason both ways', () => {
    expect(decodeChatFinishReason('length', false)).toBe('max_tokens');
    expect(decodeChatFinishReason('stop', true)).toBe('tool_use');
    expect(decodeChatFinishReason('weird', false)).toBe('end');
    expect(encodeChatFinishReason('refusal')).toBe('content_filter');
    expect(encodeChatFinishReason('stop_sequence')).toBe('stop');
  });
});
