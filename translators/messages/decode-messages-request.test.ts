import { describe, expect, it } from 'vitest';
import { decodeMessagesRequest } from './decode-messages-request.ts';

describe('decodeMessagesRequest', () => {
  it('maps system blocks with cache markers, tool use and results, thinking and images', () => {
    const conv = decodeMessagesRequest({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        { role: 'user', content: [
          { type: 'text', text: 'Weather?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          { type: 'image', source: { type: 'url', url: 'https://example.org/a.png' } },
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' }, title: 'Report', citations: { enabled: true } },
        ] },
        { role: 'assistant', content: [
          { type: 'thinking', thinking: 'call it', signature: 'SIG' },
          { type: 'redacted_thinking', data: 'RED' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_w', input: { city: 'Oslo' } },
        ] },
        { role: 'user', content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '3C' }], is_error: true, cache_control: { type: 'ephemeral' } },
        ] },
      ],
      tools: [
        { name: 'get_w', description: 'W', input_schema: { type: 'object' } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 2000 },
      stop_sequences: ['END'],
      top_k: 5,
      metadata: { user_id: 'session-9' },
      service_tier: 'auto',
      stream: true,
    });
    expect(conv.system).toEqual([{ type: 'text', text: 'Be brief.', cache: { type: 'ephemeral', ttl: '1h' } }]);
    expect(conv.turns[0].parts).toEqual([
      { type: 'text', text: 'Weather?' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.org/a.png' } },
      { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, title: 'Report', citations: true },
    ]);
    expect(conv.turns[1].parts).toEqual([
      { type: 'thinking', text: 'call it', signature: 'SIG', origin: 'messages' },
      { type: 'redacted_thinking', data: 'RED', origin: 'messages' },
      { type: 'tool_call', id: 'toolu_1', name: 'get_w', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
    ]);
    expect(conv.turns[2].parts).toEqual([
      { type: 'tool_result', callId: 'toolu_1', name: 'get_w', content: [{ type: 'text', text: '3C' }], isError: true, cache: { type: 'ephemeral' } },
    ]);
    expect(conv.tools).toEqual([{ name: 'get_w', description: 'W', parameters: { type: 'object' } }]);
    expect(conv.toolChoice).toBe('required');
    expect(conv.parallelToolCalls).toBe(false);
    expect(conv.reasoning).toEqual({ budgetTokens: 2000 });
    expect(conv.sampling).toEqual({ maxTokens: 2048, stop: ['END'], topK: 5 });
    expect(conv.sessionKey).toBe('session-9');
    expect(conv.extras.messages).toEqual({
      metadata: { user_id: 'session-9' }, service_tier: 'auto',
      server_tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
    });
    expect(conv.warnings).toHaveLength(1);
  });

  it('reads a string system and string content, and an empty signature as none', () => {
    const conv = decodeMessagesRequest({
      model: 'c', system: 'Hi', messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: '' }] }],
    });
    expect(conv.system).toEqual([{ type: 'text', text: 'Hi' }]);
    expect(conv.turns[1].parts).toEqual([{ type: 'thinking', text: 't' }]);
    expect(conv.sampling.maxTokens).toBeUndefined();
  });

  it('reads adaptive thinking with an effort and a JSON schema format', () => {
    const conv = decodeMessagesRequest({
      model: 'c', max_tokens: 10, messages: [], thinking: { type: 'adaptive' },
      output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    expect(conv.reasoning).toEqual({ adaptive: true, effort: 'high' });
    expect(conv.responseFormat).toEqual({ type: 'json_schema', schema: { type: 'object' } });
  });
});
