import { describe, expect, it } from 'vitest';
import { isTranslationError } from '../translation-error.ts';
import { decodeChatRequest } from './decode-chat-request.ts';

describe('decodeChatRequest', () => {
  it('maps instructions, turns, tool calls, tool results and images', () => {
    const conv = decodeChatRequest({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] },
        { role: 'user', content: [
          { type: 'text', text: 'Weather?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.org/a.jpg' } },
        ] },
        { role: 'assistant', content: null, tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_w', arguments: '{"city":"Oslo"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_w', arguments: 'not json' } },
        ] },
        { role: 'tool', tool_call_id: 'call_a', content: '3C' },
        { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '5C' }] },
        { role: 'system', content: 'Answer in one line.' },
      ],
      max_completion_tokens: 300,
      temperature: 0.3,
      stop: 'END',
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'get_w', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      tool_choice: { type: 'function', function: { name: 'get_w' } },
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'low',
      user: 'u-42',
      logit_bias: { '50256': -100 },
    });
    expect(conv.system).toEqual([{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Use metric.' }]);
    expect(conv.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'system']);
    expect(conv.turns[0].parts).toEqual([
      { type: 'text', text: 'Weather?' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, detail: 'low' },
      { type: 'image', source: { kind: 'url', url: 'https://example.org/a.jpg' } },
    ]);
    expect(conv.turns[1].parts).toEqual([
      { type: 'tool_call', id: 'call_a', name: 'get_w', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
      { type: 'tool_call', id: 'call_b', name: 'get_w', arguments: {}, argumentsText: 'not json' },
    ]);
    expect(conv.turns[2].parts).toEqual([{ type: 'tool_result', callId: 'call_a', name: 'get_w', content: [{ type: 'text', text: '3C' }], isError: false }]);
    expect(conv.sampling).toEqual({ maxTokens: 300, temperature: 0.3, stop: ['END'] });
    expect(conv.stream).toBe(true);
    expect(conv.streamUsage).toBe(true);
    expect(conv.toolChoice).toEqual({ name: 'get_w' });
    expect(conv.parallelToolCalls).toBe(false);
    expect(conv.responseFormat).toEqual({ type: 'json_schema', name: 'w', schema: { type: 'object' }, strict: true });
    expect(conv.reasoning).toEqual({ effort: 'low' });
    expect(conv.sessionKey).toBe('u-42');
    expect(conv.extras.chat).toEqual({ user: 'u-42', logit_bias: { '50256': -100 } });
  });

  it('keeps n as candidates and the legacy max_tokens field', () => {
    const conv = decodeChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], n: 3, max_tokens: 50 });
    expect(conv.candidates).toBe(3);
    expect(conv.sampling.maxTokens).toBe(50);
    expect(conv.extras.chat).toEqual({ max_tokens_field: 'max_tokens' });
  });

  it('decodes audio and file parts', () => {
    const conv = decodeChatRequest({ model: 'm', messages: [{ role: 'user', content: [
      { type: 'input_audio', input_audio: { data: 'UklGR', format: 'mp3' } },
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
      { type: 'file', file: { file_id: 'file-123' } },
    ] }] });
    expect(conv.turns[0].parts).toEqual([
      { type: 'audio', source: { kind: 'base64', mediaType: 'audio/mpeg', data: 'UklGR' } },
      { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, filename: 'a.pdf' },
      { type: 'document', source: { kind: 'file', fileId: 'file-123' } },
    ]);
  });

  it('refuses bodies it cannot read with a translation error', () => {
    for (const body of [null, [], { messages: [] }, { model: 'm' }, { model: 'm', messages: [{ role: 'wizard', content: 'x' }] }]) {
      let err: unknown;
      try {
        decodeChatRequest(body);
      } catch (e) {
        err = e;
      }
      expect(isTranslationError(err)).toBe(true);
    }
  });
});
