import { describe, expect, it } from 'vitest';
import type { Conversation } from '../model.ts';
import { encodeChatRequest } from './encode-chat-request.ts';

const conv = (over: Partial<Conversation> = {}): Conversation => ({
  model: 'gpt-4.1', system: [], turns: [], tools: [], sampling: {}, stream: false, extras: {}, warnings: [], ...over,
});

describe('encodeChatRequest', () => {
  it('puts tool results right after the assistant turn, ahead of the user text, and images from results after them', () => {
    const req = encodeChatRequest(conv({
      system: [{ type: 'text', text: 'Be brief.', cache: { type: 'ephemeral' } }],
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo and Bergen?' }] },
        { role: 'assistant', parts: [
          { type: 'thinking', text: 'two calls', signature: 'sig', origin: 'messages' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_call', id: 'toolu_1', name: 'get_w', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
          { type: 'tool_call', id: 'toolu_2', name: 'get_w', arguments: { city: 'Bergen' }, argumentsText: '' },
        ] },
        { role: 'user', parts: [
          { type: 'text', text: 'And a screenshot:' },
          { type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: '3C' }], isError: false },
          { type: 'tool_result', callId: 'toolu_2', content: [
            { type: 'text', text: 'see image' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
          ], isError: true },
        ] },
      ],
    }));
    expect(req.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Oslo and Bergen?' },
      { role: 'assistant', content: 'Checking.', tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'get_w', arguments: '{"city":"Oslo"}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'get_w', arguments: '{"city":"Bergen"}' } },
      ] },
      { role: 'tool', tool_call_id: 'toolu_1', content: '3C' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'see image' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
      { role: 'user', content: 'And a screenshot:' },
    ]);
  });

  it('maps sampling, tools, choice, format, reasoning and forces stream usage', () => {
    const c = conv({
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      sampling: { maxTokens: 100, temperature: 0.5, topP: 0.9, topK: 40, stop: ['END'] },
      tools: [{ name: 'f', description: 'F', parameters: { type: 'object' } }],
      toolChoice: 'required',
      parallelToolCalls: false,
      responseFormat: { type: 'json' },
      reasoning: { budgetTokens: 8000 },
      stream: true,
    });
    const req = encodeChatRequest(c);
    expect(req).toMatchObject({
      max_completion_tokens: 100, stop: ['END'], stream: true, stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object' } } }],
      tool_choice: 'required', parallel_tool_calls: false, response_format: { type: 'json_object' }, reasoning_effort: 'medium',
    });
    expect(req.top_k).toBeUndefined();
    // Reasoning models refuse these (sampling-rules.ts): dropped with a warning each.
    expect(req.temperature).toBeUndefined();
    expect(req.top_p).toBeUndefined();
    expect(c.warnings).toEqual([
      'top_k was dropped: the chat-completions style does not support it.',
      'temperature was dropped: the chat-completions style allows only 1 with reasoning.',
      'top_p was dropped: the chat-completions style does not allow it with reasoning.',
    ]);
    expect(encodeChatRequest(conv({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }], sampling: { temperature: 0.5, topP: 0.9 } })))
      .toMatchObject({ temperature: 0.5, top_p: 0.9 });
  });

  it('records a warning for what it drops', () => {
    const c = conv({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }], sampling: { topK: 5 } });
    encodeChatRequest(c);
    expect(c.warnings).toEqual(['top_k was dropped: the chat-completions style does not support it.']);
  });

  it('sends chat extras back and honours the legacy max_tokens field', () => {
    const req = encodeChatRequest(conv({
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      sampling: { maxTokens: 10 },
      candidates: 2,
      extras: { chat: { logit_bias: { 1: 2 }, max_tokens_field: 'max_tokens' } },
    }));
    expect(req).toMatchObject({ logit_bias: { 1: 2 }, max_tokens: 10, n: 2 });
    expect(req.max_completion_tokens).toBeUndefined();
    expect(req.max_tokens_field).toBeUndefined();
  });
});

describe('encodeChatRequest options', () => {
  it('can leave reasoning_effort out for models without reasoning, and use max_tokens', () => {
    const c = conv({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }], reasoning: { effort: 'high' }, sampling: { maxTokens: 5 } });
    const req = encodeChatRequest(c, { sendReasoningEffort: false, maxTokensField: 'max_tokens' });
    expect(req.reasoning_effort).toBeUndefined();
    expect(req.max_tokens).toBe(5);
    expect(c.warnings).toEqual(['reasoning_effort was dropped: the model does not reason.']);
  });
});
