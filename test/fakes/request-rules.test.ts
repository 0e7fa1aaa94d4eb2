import { describe, expect, it } from 'vitest';
import { chatRefusal, generativeRefusal, messagesRefusal, responsesRefusal } from './request-rules.ts';

const use = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] };
const result = (id: string) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] });

describe('the fakes refuse what the real APIs refuse', () => {
  it('messages: max_tokens, sampling with thinking, tool_use and tool_result pairs', () => {
    expect(messagesRefusal({ messages: [] }, 'generate')).toBe('max_tokens: Field required');
    expect(messagesRefusal({ messages: [] }, 'count')).toBeUndefined();
    const thinking = { max_tokens: 10, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [] };
    expect(messagesRefusal({ ...thinking, temperature: 0.5 }, 'generate')).toContain('temperature');
    expect(messagesRefusal({ ...thinking, top_p: 0.5 }, 'generate')).toContain('top_p');
    expect(messagesRefusal({ ...thinking, top_k: 5 }, 'generate')).toContain('top_k');
    expect(messagesRefusal({ ...thinking, temperature: 1, top_p: 0.95 }, 'generate')).toBeUndefined();
    expect(messagesRefusal({ max_tokens: 10, messages: [use, result('toolu_1')] }, 'generate')).toBeUndefined();
    expect(messagesRefusal({ max_tokens: 10, messages: [use, result('toolu_2')] }, 'generate')).toContain('toolu_1');
    expect(messagesRefusal({ max_tokens: 10, messages: [result('toolu_9')] }, 'generate')).toContain('toolu_9');
  });

  it('chat: tool messages answer the calls before them, every call answered', () => {
    const call = { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] };
    expect(chatRefusal({ messages: [call, { role: 'tool', tool_call_id: 'c1', content: 'ok' }] })).toBeUndefined();
    expect(chatRefusal({ messages: [{ role: 'tool', tool_call_id: 'c1', content: 'ok' }] })).toContain("role 'tool'");
    expect(chatRefusal({ messages: [call, { role: 'user', content: 'x' }] })).toContain('c1');
  });

  it('responses: a function_call_output answers an earlier function_call', () => {
    expect(responsesRefusal({ input: [{ type: 'function_call', call_id: 'a' }, { type: 'function_call_output', call_id: 'a' }] })).toBeUndefined();
    expect(responsesRefusal({ input: [{ type: 'function_call_output', call_id: 'b' }] })).toContain('call_id b');
  });

  it('generative: function responses match the calls of the turn before, one for one', () => {
    const calls = { role: 'model', parts: [{ functionCall: { name: 'f' } }, { functionCall: { name: 'g' } }] };
    expect(generativeRefusal({ contents: [calls, { role: 'user', parts: [{ functionResponse: { name: 'f' } }, { functionResponse: { name: 'g' } }] }] })).toBeUndefined();
    expect(generativeRefusal({ contents: [calls, { role: 'user', parts: [{ functionResponse: { name: 'f' } }] }] })).toContain('number of function response parts');
  });
});
