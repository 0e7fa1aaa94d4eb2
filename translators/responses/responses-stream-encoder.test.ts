import { describe, expect, it } from 'vitest';
import { readSseFixture } from '../../test/helpers/sse-fixtures.ts';
import type { StreamEvent } from '../model.ts';
import { ResponsesStreamDecoder } from './responses-stream-decoder.ts';
import { type ResponsesOutEvent, ResponsesStreamEncoder } from './responses-stream-encoder.ts';

function encode(events: StreamEvent[]): ResponsesOutEvent[] {
  const e = new ResponsesStreamEncoder();
  return [...events.flatMap((ev) => e.push(ev)), ...e.end()];
}

const TURN: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'claude-x' },
  { type: 'part_start', index: 0, part: { kind: 'thinking' } },
  { type: 'thinking_delta', index: 0, text: 'Hmm.' },
  { type: 'signature', index: 0, signature: 'anthropic-sig', origin: 'messages' },
  { type: 'part_end', index: 0 },
  { type: 'part_start', index: 1, part: { kind: 'text' } },
  { type: 'text_delta', index: 1, text: 'Checking' },
  { type: 'text_delta', index: 1, text: ' both.' },
  { type: 'part_end', index: 1 },
  { type: 'part_start', index: 2, part: { kind: 'tool_call', id: 'call_a', name: 'get_w' } },
  { type: 'part_start', index: 3, part: { kind: 'tool_call', id: 'call_b', name: 'get_w' } },
  { type: 'tool_args_delta', index: 2, json: '{"city":"Oslo"}' },
  { type: 'tool_args_delta', index: 3, json: '{"city":"Paris"}' },
  { type: 'part_end', index: 2 },
  { type: 'part_end', index: 3 },
  { type: 'usage', usage: { inputTokens: 10, cacheReadTokens: 5, outputTokens: 20, reasoningTokens: 4, source: 'reported' } },
  { type: 'stop', reason: 'tool_use' },
];

describe('ResponsesStreamEncoder', () => {
  it('sends the full lifecycle with sequence numbers and a terminal response holding output and usage', () => {
    const out = encode(TURN);
    expect(out.map((e) => e.type)).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.output_item.added',
      'response.function_call_arguments.delta', 'response.function_call_arguments.delta',
      'response.function_call_arguments.done', 'response.output_item.done',
      'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
    expect(out.map((e) => e.sequence_number)).toEqual(out.map((_e, i) => i));
    // Typed clients read the function's name from the arguments' done event.
    expect(out.filter((e) => e.type === 'response.function_call_arguments.done').map((e) => (e as { name?: string }).name)).toEqual(['get_w', 'get_w']);
    const done = out.at(-1);
    if (done?.type !== 'response.completed') throw new Error('no completed event');
    expect(done.response).toMatchObject({ id: 'resp_msg_1', status: 'completed', model: 'claude-x', error: null, incomplete_details: null });
    expect(done.response.usage).toEqual({ input_tokens: 15, input_tokens_details: { cached_tokens: 5, cache_write_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 4 }, total_tokens: 35 });
    expect(done.response.output).toEqual([
      { type: 'reasoning', id: 'rs_respmsg1_0', summary: [{ type: 'summary_text', text: 'Hmm.' }] },
      { type: 'message', id: 'msg_respmsg1_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checking both.', annotations: [], logprobs: [] }] },
      { type: 'function_call', id: 'fc_respmsg1_2', call_id: 'call_a', name: 'get_w', arguments: '{"city":"Oslo"}', status: 'completed' },
      { type: 'function_call', id: 'fc_respmsg1_3', call_id: 'call_b', name: 'get_w', arguments: '{"city":"Paris"}', status: 'completed' },
    ]);
  });

  it('ends a length stop with response.incomplete', () => {
    const out = encode([{ type: 'start', id: 'a', model: 'm' }, { type: 'stop', reason: 'max_tokens' }]);
    expect(out.at(-1)).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } });
  });

  it('sends an error event then response.failed, for errors and for streams that end early', () => {
    const out = encode([{ type: 'start', id: 'a', model: 'm' }, { type: 'part_start', index: 0, part: { kind: 'text' } }, { type: 'text_delta', index: 0, text: 'x' }]);
    const message = 'The upstream stream ended before the answer was finished.';
    expect(out.slice(-2)).toMatchObject([
      { type: 'error', code: 'server_error', message, param: null, error: { type: 'server_error', code: 'server_error', message, param: null } },
      { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error' }, output: [{ type: 'message', status: 'incomplete', content: [{ text: 'x' }] }] } },
    ]);
    expect(out.find((e) => e.type === 'response.output_item.done')).toMatchObject({ item: { type: 'message', status: 'incomplete' } });
    const rate = encode([{ type: 'error', error: { status: 429, type: 'rate_limit', message: 'Slow down.' } }]);
    expect(rate.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
  });

  it('closes a stream the client already started (a broken passthrough) without a second response.created', () => {
    const enc = new ResponsesStreamEncoder({ continuing: { id: 'resp_upstream1', sequenceFrom: 7 } });
    const out = enc.push({ type: 'error', error: { status: 502, type: 'server', message: 'cut' } });
    expect(out.map((e) => e.type)).toEqual(['error', 'response.failed']);
    expect(out.map((e) => e.sequence_number)).toEqual([7, 8]);
    expect(out[1]).toMatchObject({ response: { id: 'resp_upstream1', status: 'failed' } });
  });

  it('round-trips through its own decoder, keeping encrypted reasoning as the signature', () => {
    const d = new ResponsesStreamDecoder();
    const recorded = [...readSseFixture('responses', 'reasoning.sse.txt').flatMap((m) => d.push(m)), ...d.end()];
    const again = new ResponsesStreamDecoder();
    const replayed = encode(recorded).flatMap((e) => again.push({ event: e.type, data: JSON.stringify(e) }));
    const strip = (evs: StreamEvent[]) => evs.filter((e) => e.type !== 'start');
    expect(strip(replayed)).toEqual(strip(recorded));
  });
});
