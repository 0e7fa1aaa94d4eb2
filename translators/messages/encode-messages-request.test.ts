import { describe, expect, it } from 'vitest';
import type { Conversation } from '../model.ts';
import { isTranslationError } from '../translation-error.ts';
import { decodeChatRequest } from '../chat/decode-chat-request.ts';
import { defaultMaxTokens } from './default-max-tokens.ts';
import { encodeMessagesRequest } from './encode-messages-request.ts';

const conv = (over: Partial<Conversation> = {}): Conversation => ({
  model: 'claude-sonnet-4-5', system: [], turns: [], tools: [], sampling: {}, stream: false, extras: {}, warnings: [], ...over,
});

describe('encodeMessagesRequest', () => {
  it('turns a chat transcript into alternating turns with results first and a default max_tokens', () => {
    const c = decodeChatRequest({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/' } }] },
        { role: 'assistant', content: '', tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_w', arguments: '{"city":"Oslo"}' } },
          { id: 'call.b/2', type: 'function', function: { name: 'get_w', arguments: '{"city":"Bergen"}' } },
        ] },
        { role: 'tool', tool_call_id: 'call_a', content: '3C' },
        { role: 'tool', tool_call_id: 'call.b/2', content: '5C' },
        { role: 'user', content: '  ' },
        { role: 'system', content: 'One line.' },
      ],
      temperature: 1.6,
      stop: ['END'],
    });
    const req = encodeMessagesRequest(c);
    expect(req.max_tokens).toBe(defaultMaxTokens('claude-sonnet-4-5'));
    expect(req.system).toBe('Be brief.');
    expect(req.temperature).toBe(1);
    expect(req.stop_sequences).toEqual(['END']);
    const bId = (req.messages[1].content as { id: string }[])[1].id;
    expect(bId).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(req.messages).toEqual([
      { role: 'user', content: [
        { type: 'text', text: 'Weather?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/' } },
      ] },
      { role: 'assistant', content: [
        { type: 'tool_use', id: 'call_a', name: 'get_w', input: { city: 'Oslo' } },
        { type: 'tool_use', id: bId, name: 'get_w', input: { city: 'Bergen' } },
      ] },
      { role: 'user', content: [
        { type: 'tool_result', tool_use_id: 'call_a', content: '3C' },
        { type: 'tool_result', tool_use_id: bId, content: '5C' },
        { type: 'text', text: 'One line.' },
      ] },
    ]);
    expect(c.warnings).toContain('temperature 1.6 was lowered to 1: the messages style allows only 0 to 1.');
  });

  it('keeps cache markers, signed thinking, and drops foreign thinking', () => {
    const req = encodeMessagesRequest(conv({
      system: [{ type: 'text', text: 'S', cache: { type: 'ephemeral' } }],
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'q', cache: { type: 'ephemeral', ttl: '1h' } }] },
        { role: 'assistant', parts: [
          { type: 'thinking', text: 'mine', signature: 'SIG', origin: 'messages' },
          { type: 'thinking', text: 'theirs', signature: 'x', origin: 'generative' },
          { type: 'text', text: 'a' },
        ] },
      ],
    }));
    expect(req.system).toEqual([{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }]);
    expect(req.messages[0].content).toEqual([{ type: 'text', text: 'q', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    expect(req.messages[1].content).toEqual([{ type: 'thinking', thinking: 'mine', signature: 'SIG' }, { type: 'text', text: 'a' }]);
  });

  it('derives a thinking budget from an effort, drops top_k and temperature, and keeps max_tokens above the budget', () => {
    const c = conv({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'q' }] }], reasoning: { effort: 'high' }, sampling: { temperature: 0.2, topK: 3 } });
    const req = encodeMessagesRequest(c);
    expect(req.thinking).toEqual({ type: 'enabled', budget_tokens: 24576 });
    expect(req.max_tokens).toBeGreaterThan(24576);
    expect(req.temperature).toBeUndefined();
    expect(req.top_k).toBeUndefined();
    expect(c.warnings).toHaveLength(2);
  });

  it('raises top_p below 0.95 to 0.95 with thinking on (the API refuses less), and keeps it without thinking', () => {
    const user = [{ role: 'user' as const, parts: [{ type: 'text' as const, text: 'q' }] }];
    const on = conv({ turns: user, reasoning: { effort: 'high' }, sampling: { topP: 0.5 } });
    expect(encodeMessagesRequest(on).top_p).toBe(0.95);
    expect(on.warnings).toEqual(['top_p 0.5 was raised to 0.95: the messages style allows only 0.95 to 1 with thinking.']);
    const high = conv({ turns: user, reasoning: { effort: 'high' }, sampling: { topP: 0.98 } });
    expect(encodeMessagesRequest(high).top_p).toBe(0.98);
    expect(high.warnings).toEqual([]);
    const off = conv({ turns: user, sampling: { topP: 0.5 } });
    expect(encodeMessagesRequest(off).top_p).toBe(0.5);
    expect(off.warnings).toEqual([]);
  });

  it('turns thinking off when the tool turn has no signed thinking, or a tool is forced', () => {
    const toolTurns: Conversation['turns'] = [
      { role: 'user', parts: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'f', arguments: {}, argumentsText: '{}' }] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'r' }], isError: false }] },
    ];
    const a = conv({ turns: toolTurns, reasoning: { budgetTokens: 4000 } });
    expect(encodeMessagesRequest(a).thinking).toBeUndefined();
    expect(a.warnings[0]).toMatch(/Thinking was turned off/);
    const b = conv({ turns: [toolTurns[0]], tools: [{ name: 'f', parameters: { type: 'object' } }], toolChoice: { name: 'f' }, reasoning: { budgetTokens: 4000 } });
    const req = encodeMessagesRequest(b);
    expect(req.thinking).toBeUndefined();
    expect(req.tool_choice).toEqual({ type: 'tool', name: 'f' });
  });

  it('maps tool choice none, parallel off, JSON schema output and the session key', () => {
    const req = encodeMessagesRequest(conv({
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'q' }] }],
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      parallelToolCalls: false,
      responseFormat: { type: 'json_schema', schema: { type: 'object' } },
      sessionKey: 'u-1',
      sampling: { maxTokens: 99 },
    }));
    expect(req.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(req.output_config).toEqual({ format: { type: 'json_schema', schema: { type: 'object' } } });
    expect(req.metadata).toEqual({ user_id: 'u-1' });
    expect(req.max_tokens).toBe(99);
  });

  it('refuses n > 1 with a translation error (answered as 400)', () => {
    let err: unknown;
    try {
      encodeMessagesRequest(conv({ candidates: 2 }));
    } catch (e) {
      err = e;
    }
    expect(isTranslationError(err)).toBe(true);
    expect((err as { param?: string }).param).toBe('n');
  });

  it('sends server tools and extras back to a messages upstream', () => {
    const req = encodeMessagesRequest(conv({
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'q' }] }],
      extras: { messages: { service_tier: 'auto', server_tools: [{ type: 'web_search_20250305', name: 'web_search' }] } },
    }));
    expect(req.service_tier).toBe('auto');
    expect(req.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
    expect(req.server_tools).toBeUndefined();
  });
});

describe('defaultMaxTokens', () => {
  it('knows the model families', () => {
    expect(defaultMaxTokens('claude-3-haiku-20240307')).toBe(4096);
    expect(defaultMaxTokens('claude-3-5-sonnet-latest')).toBe(8192);
    expect(defaultMaxTokens('claude-opus-4-1')).toBe(32000);
    expect(defaultMaxTokens('some-local-model')).toBe(8192);
  });
});

describe('thinking support by model family', () => {
  it('drops thinking for Claude 3 and 3.5 models with a warning', () => {
    const c = conv({ model: 'claude-3-5-haiku-latest', turns: [{ role: 'user', parts: [{ type: 'text', text: 'q' }] }], reasoning: { effort: 'low' } });
    expect(encodeMessagesRequest(c).thinking).toBeUndefined();
    expect(c.warnings).toEqual(['Thinking was turned off: claude-3-5-haiku-latest does not support thinking.']);
    const d = conv({ model: 'claude-3-7-sonnet-latest', turns: [{ role: 'user', parts: [{ type: 'text', text: 'q' }] }], reasoning: { effort: 'low' } });
    expect(encodeMessagesRequest(d).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });
});
