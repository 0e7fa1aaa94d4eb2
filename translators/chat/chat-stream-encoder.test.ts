import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../model.ts';
import { ChatStreamEncoder, frameChatStreamOut } from './chat-stream-encoder.ts';
import type { ChatChunk, ChatStreamOut } from './types.ts';

const encode = (events: StreamEvent[], opts = {}) => {
  const enc = new ChatStreamEncoder({ created: 1700000000, ...opts });
  return [...events.flatMap((e) => enc.push(e)), ...enc.end()];
};
const deltas = (out: ChatStreamOut[]) => out.filter((o): o is ChatChunk => typeof o === 'object' && 'choices' in o && o.choices.length > 0).map((c) => c.choices[0]);

const base: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'claude-x' },
  { type: 'usage', usage: { source: 'reported', inputTokens: 10, cacheReadTokens: 90, cacheWriteTokens: 5, outputTokens: 1 } },
  { type: 'part_start', index: 0, part: { kind: 'thinking' } },
  { type: 'thinking_delta', index: 0, text: 'hmm' },
  { type: 'signature', index: 0, signature: 'sig', origin: 'messages' },
  { type: 'part_end', index: 0 },
  { type: 'part_start', index: 1, part: { kind: 'text' } },
  { type: 'text_delta', index: 1, text: 'Hi' },
  { type: 'part_end', index: 1 },
  { type: 'part_start', index: 2, part: { kind: 'tool_call', id: 'toolu_a', name: 'f' } },
  { type: 'part_start', index: 3, part: { kind: 'tool_call', id: 'toolu_b', name: 'g' } },
  { type: 'tool_args_delta', index: 3, json: '{"b":' },
  { type: 'tool_args_delta', index: 2, json: '{"a":1}' },
  { type: 'tool_args_delta', index: 3, json: '2}' },
  { type: 'part_end', index: 2 },
  { type: 'part_end', index: 3 },
  { type: 'usage', usage: { source: 'reported', inputTokens: 10, cacheReadTokens: 90, cacheWriteTokens: 5, outputTokens: 30, reasoningTokens: 7 } },
  { type: 'stop', reason: 'tool_use' },
];

describe('ChatStreamEncoder', () => {
  it('writes the role chunk, content, reasoning, tool calls with their own indexes, finish and [DONE]', () => {
    const out = encode(base);
    const d = deltas(out);
    expect(d[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(d.map((c) => c.delta)).toContainEqual({ reasoning_content: 'hmm' });
    expect(d.map((c) => c.delta)).toContainEqual({ content: 'Hi' });
    const calls = d.flatMap((c) => c.delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'toolu_a', type: 'function', function: { name: 'f', arguments: '' } },
      { index: 1, id: 'toolu_b', type: 'function', function: { name: 'g', arguments: '' } },
      { index: 1, function: { arguments: '{"b":' } },
      { index: 0, function: { arguments: '{"a":1}' } },
      { index: 1, function: { arguments: '2}' } },
    ]);
    expect(d.at(-1)).toEqual({ index: 0, delta: {}, finish_reason: 'tool_calls' });
    expect(out.at(-1)).toBe('[DONE]');
    expect(out.some((o) => typeof o === 'object' && 'usage' in o && o.usage)).toBe(false);
  });

  it('adds the usage chunk only when the client asked, with cache tokens counted in prompt_tokens', () => {
    const out = encode(base, { includeUsage: true });
    const usageChunk = out.at(-2) as ChatChunk;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual({
      prompt_tokens: 105,
      completion_tokens: 30,
      total_tokens: 135,
      prompt_tokens_details: { cached_tokens: 90 },
      completion_tokens_details: { reasoning_tokens: 7 },
    });
    expect((out[0] as ChatChunk).usage).toBeNull();
  });

  it('uses the upstream id and the model override', () => {
    const out = encode(base, { model: 'my-alias' });
    expect(out[0]).toMatchObject({ id: 'msg_1', model: 'my-alias', object: 'chat.completion.chunk', created: 1700000000 });
  });

  it('ends with an error object and no [DONE] on an error event', () => {
    const out = encode([
      { type: 'start', id: 'x', model: 'm' },
      { type: 'error', error: { status: 529, type: 'overloaded', message: 'Overloaded', code: 'overloaded_error' } },
    ]);
    expect(out.at(-1)).toEqual({ error: { message: 'Overloaded', type: 'server_error', param: null, code: 'overloaded_error' } });
    expect(out).not.toContain('[DONE]');
  });

  it('ends with an error object when the events stop without a stop event', () => {
    const out = encode([{ type: 'start', id: 'x', model: 'm' }, { type: 'part_start', index: 0, part: { kind: 'text' } }]);
    expect(out.at(-1)).toMatchObject({ error: { type: 'server_error' } });
    expect(out).not.toContain('[DONE]');
  });

  it('frames chunks as data lines without event names', () => {
    expect(frameChatStreamOut('[DONE]')).toEqual({ data: '[DONE]' });
    expect(frameChatStreamOut({ error: { message: 'm', type: 't', param: null, code: null } })).toEqual({ data: '{"error":{"message":"m","type":"t","param":null,"code":null}}' });
  });

  it('frames text chunks byte for byte as JSON.stringify would, whatever the text, id, model and usage option', () => {
    const texts = ['Hi', '', 'quote " and \\ backslash', 'line\nbreak\ttab', 'ünïcödé ✓ 🦊', '\u2028\u2029', '\u0000\u001f', '</script>'];
    for (const includeUsage of [false, true]) {
      for (const [id, model] of [['msg_1', 'claude-x'], ['id "quoted"', 'm\\odel'], ['', '']]) {
        const events: StreamEvent[] = [
          { type: 'start', id, model },
          { type: 'part_start', index: 0, part: { kind: 'text' } },
          ...texts.map((text): StreamEvent => ({ type: 'text_delta', index: 0, text })),
          { type: 'stop', reason: 'end' },
        ];
        const out = encode(events, { includeUsage });
        expect(out.filter((o) => typeof o === 'object' && 'choices' in o && o.choices[0]?.delta.content !== undefined).length).toBeGreaterThan(texts.length - 1);
        for (const o of out) expect(frameChatStreamOut(o).data).toBe(o === '[DONE]' ? '[DONE]' : JSON.stringify(o));
      }
    }
  });

  it('sends {} as the arguments of a call that got no argument text (messages partial_json:"")', () => {
    const out = encode([
      { type: 'start', id: 'x', model: 'm' },
      { type: 'part_start', index: 0, part: { kind: 'tool_call', id: 'toolu_1', name: 'get_time' } },
      { type: 'tool_args_delta', index: 0, json: '' },
      { type: 'part_end', index: 0 },
      { type: 'part_start', index: 1, part: { kind: 'tool_call', id: 'toolu_2', name: 'get_w' } },
      { type: 'tool_args_delta', index: 1, json: '{"city":"Oslo"}' },
      { type: 'part_end', index: 1 },
      { type: 'stop', reason: 'tool_use' },
    ]);
    const args = new Map<number, string>();
    for (const d of deltas(out)) for (const tc of d.delta.tool_calls ?? []) args.set(tc.index ?? 0, (args.get(tc.index ?? 0) ?? '') + (tc.function?.arguments ?? ''));
    expect([...args.values()]).toEqual(['{}', '{"city":"Oslo"}']);
  });
});
