import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../model.ts';
import { MessagesStreamEncoder, frameMessagesStreamOut } from './messages-stream-encoder.ts';
import type { MessagesStreamEvent } from './types.ts';

const encode = (events: StreamEvent[]) => {
  const enc = new MessagesStreamEncoder();
  return [...events.flatMap((e) => enc.push(e)), ...enc.end()];
};
const brief = (out: MessagesStreamEvent[]) => out.map((o) => {
  if (o.type === 'content_block_start') return `start ${o.index} ${o.content_block.type}`;
  if (o.type === 'content_block_delta') return `delta ${o.index} ${JSON.stringify(o.delta)}`;
  if (o.type === 'content_block_stop') return `stop ${o.index}`;
  return o.type;
});

describe('MessagesStreamEncoder', () => {
  it('serialises interleaved parallel tool calls one block at a time, renumbering blocks', () => {
    const out = encode([
      { type: 'start', id: 'chatcmpl-1', model: 'gpt-4.1' },
      { type: 'part_start', index: 0, part: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Checking.' },
      { type: 'part_end', index: 0 },
      { type: 'part_start', index: 1, part: { kind: 'tool_call', id: 'call_a', name: 'lookup' } },
      { type: 'part_start', index: 2, part: { kind: 'tool_call', id: 'call_b', name: 'fetch' } },
      { type: 'tool_args_delta', index: 2, json: '{"url":' },
      { type: 'tool_args_delta', index: 1, json: '{"q":1}' },
      { type: 'tool_args_delta', index: 2, json: '"u"}' },
      { type: 'part_end', index: 1 },
      { type: 'part_end', index: 2 },
      { type: 'usage', usage: { source: 'reported', inputTokens: 80, cacheReadTokens: 8, outputTokens: 40 } },
      { type: 'stop', reason: 'tool_use' },
    ]);
    expect(brief(out)).toEqual([
      'message_start',
      'start 0 text',
      'delta 0 {"type":"text_delta","text":"Checking."}',
      'stop 0',
      'start 1 tool_use',
      'delta 1 {"type":"input_json_delta","partial_json":"{\\"q\\":1}"}',
      'stop 1',
      'start 2 tool_use',
      'delta 2 {"type":"input_json_delta","partial_json":"{\\"url\\":"}',
      'delta 2 {"type":"input_json_delta","partial_json":"\\"u\\"}"}',
      'stop 2',
      'message_delta',
      'message_stop',
    ]);
    expect(out[4]).toEqual({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_a', name: 'lookup', input: {} } });
    expect(out.at(-2)).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 80, cache_creation_input_tokens: 0, cache_read_input_tokens: 8, output_tokens: 40 },
    });
  });

  it('puts usage known at the start into message_start', () => {
    const out = encode([
      { type: 'start', id: 'msg_1', model: 'claude' },
      { type: 'usage', usage: { source: 'reported', inputTokens: 43, cacheReadTokens: 2048, cacheWriteTokens: 0, outputTokens: 1 } },
      { type: 'stop', reason: 'end' },
    ]);
    expect(out[0]).toMatchObject({ type: 'message_start', message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 43, cache_read_input_tokens: 2048 } } });
  });

  it('sends messages-family signatures and drops foreign ones', () => {
    const out = encode([
      { type: 'start', id: 'm', model: 'c' },
      { type: 'part_start', index: 0, part: { kind: 'thinking' } },
      { type: 'thinking_delta', index: 0, text: 'a' },
      { type: 'signature', index: 0, signature: 'SIG', origin: 'messages' },
      { type: 'part_end', index: 0 },
      { type: 'part_start', index: 1, part: { kind: 'thinking' } },
      { type: 'thinking_delta', index: 1, text: 'b' },
      { type: 'signature', index: 1, signature: 'gemini-sig', origin: 'generative' },
      { type: 'part_end', index: 1 },
      { type: 'part_start', index: 2, part: { kind: 'redacted_thinking', data: 'x', origin: 'responses' } },
      { type: 'part_end', index: 2 },
      { type: 'stop', reason: 'end' },
    ]);
    expect(brief(out)).toEqual([
      'message_start',
      'start 0 thinking',
      'delta 0 {"type":"thinking_delta","thinking":"a"}',
      'delta 0 {"type":"signature_delta","signature":"SIG"}',
      'stop 0',
      'start 1 thinking',
      'delta 1 {"type":"thinking_delta","thinking":"b"}',
      'stop 1',
      'message_delta',
      'message_stop',
    ]);
  });

  it('writes an error event and nothing after it', () => {
    const out = encode([
      { type: 'start', id: 'm', model: 'c' },
      { type: 'part_start', index: 0, part: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Part' },
      { type: 'error', error: { status: 503, type: 'overloaded', message: 'busy' } },
      { type: 'stop', reason: 'end' },
    ]);
    expect(out.at(-1)).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } });
    expect(brief(out)).not.toContain('message_stop');
  });

  it('ends with an error event when the events stop without a stop event', () => {
    const out = encode([{ type: 'start', id: 'm', model: 'c' }, { type: 'part_start', index: 0, part: { kind: 'text' } }]);
    expect(out.at(-1)).toEqual({ type: 'error', error: { type: 'api_error', message: 'The upstream stream ended unexpectedly.' } });
  });

  it('frames each event under its own name', () => {
    expect(frameMessagesStreamOut({ type: 'message_stop' })).toEqual({ event: 'message_stop', data: '{"type":"message_stop"}' });
  });
});
