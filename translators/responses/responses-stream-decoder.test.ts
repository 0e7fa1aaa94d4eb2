import { describe, expect, it } from 'vitest';
import { readSseFixture } from '../../test/helpers/sse-fixtures.ts';
import type { StreamEvent } from '../model.ts';
import { ResponsesStreamDecoder } from './responses-stream-decoder.ts';

function decode(name: string): StreamEvent[] {
  const d = new ResponsesStreamDecoder();
  return [...readSseFixture('responses', name).flatMap((m) => d.push(m)), ...d.end()];
}

describe('ResponsesStreamDecoder', () => {
  it('decodes a text turn and its usage', () => {
    expect(decode('text.sse.txt')).toEqual([
      { type: 'start', id: 'resp_0a1', model: 'gpt-5-codex' },
      { type: 'part_start', index: 0, part: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'The sky' },
      { type: 'text_delta', index: 0, text: ' is blue' },
      { type: 'text_delta', index: 0, text: ' because of Rayleigh scattering.' },
      { type: 'part_end', index: 0 },
      { type: 'usage', usage: { inputTokens: 21, outputTokens: 12, cacheReadTokens: 0, reasoningTokens: 0, source: 'reported' } },
      { type: 'stop', reason: 'end' },
    ]);
  });

  it('decodes a reasoning summary signed with the final encrypted content', () => {
    const events = decode('reasoning.sse.txt');
    expect(events.slice(1, 6)).toEqual([
      { type: 'part_start', index: 0, part: { kind: 'thinking' } },
      { type: 'thinking_delta', index: 0, text: '**Adding numbers**\n\n' },
      { type: 'thinking_delta', index: 0, text: 'Two plus two is four.' },
      { type: 'signature', index: 0, signature: 'gAAAAABo-enc-final==', origin: 'responses' },
      { type: 'part_end', index: 0 },
    ]);
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 8, outputTokens: 70, cacheReadTokens: 32, reasoningTokens: 64, source: 'reported' } },
      { type: 'stop', reason: 'end' },
    ]);
  });

  it('decodes parallel calls by item, with their call ids, even when the terminal output is empty', () => {
    const events = decode('parallel-tool-calls.sse.txt');
    const calls = events.filter((e) => e.type === 'part_start' && e.part.kind === 'tool_call');
    expect(calls).toEqual([
      { type: 'part_start', index: 1, part: { kind: 'tool_call', id: 'call_Oslo1', name: 'get_weather' } },
      { type: 'part_start', index: 2, part: { kind: 'tool_call', id: 'call_Paris2', name: 'get_weather' } },
    ]);
    const args = (i: number) => events.flatMap((e) => (e.type === 'tool_args_delta' && e.index === i ? [e.json] : [])).join('');
    expect(args(1)).toBe('{"city":"Oslo"}');
    expect(args(2)).toBe('{"city":"Paris"}');
    expect(events.at(-1)).toEqual({ type: 'stop', reason: 'tool_use' });
  });

  it('maps an incomplete response to max_tokens', () => {
    expect(decode('incomplete.sse.txt').at(-1)).toEqual({ type: 'stop', reason: 'max_tokens' });
  });

  it('ends with one error on an error event followed by response.failed', () => {
    const events = decode('error.sse.txt');
    expect(events.filter((e) => e.type === 'error')).toEqual([
      { type: 'error', error: { status: 500, type: 'server', message: 'The server had an error processing your request.', code: 'server_error' } },
    ]);
    expect(events.at(-1)?.type).toBe('error');
  });

  it('ends a stream cut short with an error, never a clean stop', () => {
    const events = decode('cut-short.sse.txt');
    expect(events.some((e) => e.type === 'stop')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { type: 'server' } });
  });

  it('repairs partial lifecycles: deltas and done items without added events', () => {
    const d = new ResponsesStreamDecoder();
    const feed = (o: object) => d.push({ data: JSON.stringify(o) });
    const events = [
      ...feed({ type: 'response.output_text.delta', item_id: 'm1', output_index: 0, content_index: 0, delta: 'Hi' }),
      ...feed({ type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', id: 'fc1', call_id: 'c1', name: 'f', arguments: '{"a":1}' } }),
      ...feed({ type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: 'm1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi' }] } }),
      ...feed({ type: 'response.completed', response: { id: 'r', status: 'completed', output: [] } }),
    ];
    expect(events).toEqual([
      { type: 'start', id: '', model: '' },
      { type: 'part_start', index: 0, part: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Hi' },
      { type: 'part_start', index: 1, part: { kind: 'tool_call', id: 'c1', name: 'f' } },
      { type: 'tool_args_delta', index: 1, json: '{"a":1}' },
      { type: 'part_end', index: 1 },
      { type: 'part_end', index: 0 },
      { type: 'stop', reason: 'tool_use' },
    ]);
  });

  it('reads the quota error of the ChatGPT-plan backend in a stream', () => {
    const d = new ResponsesStreamDecoder();
    const out = d.push({ event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_in_seconds: 602705 } }) });
    expect(out.at(-1)).toEqual({ type: 'error', error: { status: 429, type: 'rate_limit', message: 'The usage limit has been reached', code: 'usage_limit_reached', retryAfter: 602705 } });
  });
});
