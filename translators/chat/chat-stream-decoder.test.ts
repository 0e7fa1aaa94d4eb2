import { describe, expect, it } from 'vitest';
import { listSseFixtures, readSseFixture, replay } from '../../test/helpers/sse-fixtures.ts';
import { collectStream } from '../collect-stream.ts';
import { ChatStreamDecoder } from './chat-stream-decoder.ts';

const run = (name: string) => replay(new ChatStreamDecoder(), readSseFixture('chat', name));

describe('ChatStreamDecoder', () => {
  it('has fixtures to replay', () => {
    expect(listSseFixtures('chat')).toContain('text.sse.txt');
  });

  it('decodes a text stream with the usage chunk before the stop', () => {
    const events = run('text.sse.txt');
    expect(events[0]).toEqual({ type: 'start', id: 'chatcmpl-AbC1', model: 'gpt-4o-mini-2024-07-18' });
    expect(events.slice(-3).map((e) => e.type)).toEqual(['part_end', 'usage', 'stop']);
    const { reply, complete } = collectStream(events);
    expect(complete).toBe(true);
    expect(reply.parts).toEqual([{ type: 'text', text: 'Oslo is 3\u00b0C and cloudy.' }]);
    expect(reply.stopReason).toBe('end');
    expect(reply.usage).toEqual({ source: 'reported', inputTokens: 176, cacheReadTokens: 1024, outputTokens: 9, reasoningTokens: 0 });
  });

  it('keeps parallel tool calls apart, with their ids and arguments', () => {
    const { reply } = collectStream(run('tool-calls-parallel.sse.txt'));
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.parts).toEqual([
      { type: 'tool_call', id: 'call_oslo1', name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city": "Oslo"}' },
      { type: 'tool_call', id: 'call_bergen2', name: 'get_weather', arguments: { city: 'Bergen', unit: 'c' }, argumentsText: '{"city": "Bergen", "unit": "c"}' },
    ]);
  });

  it('routes interleaved argument fragments by index (CRLF framing)', () => {
    const events = run('tool-calls-interleaved.sse.txt');
    const { reply } = collectStream(events);
    expect(reply.parts.map((p) => p.type)).toEqual(['text', 'tool_call', 'tool_call']);
    expect(reply.parts[1]).toMatchObject({ id: 'call_a', name: 'lookup', arguments: { q: 'fjords' } });
    expect(reply.parts[2]).toMatchObject({ id: 'call_b', name: 'fetch_page', arguments: { url: 'https://example.org/' } });
    expect(reply.usage).toMatchObject({ inputTokens: 88, outputTokens: 40 });
    // The text part is closed before the first tool call starts.
    const textEnd = events.findIndex((e) => e.type === 'part_end' && e.index === 0);
    const toolStart = events.findIndex((e) => e.type === 'part_start' && e.part.kind === 'tool_call');
    expect(textEnd).toBeLessThan(toolStart);
  });

  it('decodes reasoning_content as a thinking part and reasoning tokens', () => {
    const { reply } = collectStream(run('reasoning.sse.txt'));
    expect(reply.parts).toEqual([
      { type: 'thinking', text: 'The user asks 17*3. That is 51.' },
      { type: 'text', text: '51' },
    ]);
    expect(reply.usage).toMatchObject({ inputTokens: 20, outputTokens: 30, reasoningTokens: 24, cacheReadTokens: 0 });
  });

  it('turns a mid-stream error into an error event and nothing after it', () => {
    const events = run('error-midstream.sse.txt');
    const last = events.at(-1);
    expect(last).toEqual({
      type: 'error',
      error: { status: 500, type: 'server', code: 'server_error', message: 'The server had an error while processing your request. Sorry about that!' },
    });
    expect(events.some((e) => e.type === 'stop')).toBe(false);
  });

  it('ends a stream cut before its finish reason with an error, never a clean stop', () => {
    const events = run('truncated.sse.txt');
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { type: 'server' } });
    expect(events.some((e) => e.type === 'stop')).toBe(false);
  });

  it('accepts a finish without [DONE] as complete', () => {
    const d = new ChatStreamDecoder();
    d.push({ data: JSON.stringify({ id: 'x', model: 'm', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'length' }] }) });
    expect(d.end().at(-1)).toEqual({ type: 'stop', reason: 'max_tokens' });
  });

  it('splits every parallel call sent on index 0 by id', () => {
    const d = new ChatStreamDecoder();
    const chunk = (tc: object, finish: string | null = null) => ({ data: JSON.stringify({ id: 'x', model: 'm', choices: [{ index: 0, delta: { tool_calls: [tc] }, finish_reason: finish }] }) });
    const events = [
      ...d.push(chunk({ index: 0, id: 'call_1', function: { name: 'a', arguments: '{}' } })),
      ...d.push(chunk({ index: 0, id: 'call_2', function: { name: 'b', arguments: '{"x":1}' } }, 'tool_calls')),
      ...d.push({ data: '[DONE]' }),
    ];
    const { reply } = collectStream(events);
    expect(reply.parts.map((p) => (p.type === 'tool_call' ? [p.id, p.name, p.arguments] : p.type))).toEqual([
      ['call_1', 'a', {}],
      ['call_2', 'b', { x: 1 }],
    ]);
  });

  it('makes up a deterministic id for a call without one', () => {
    const make = () => {
      const d = new ChatStreamDecoder();
      return [
        ...d.push({ data: JSON.stringify({ id: 'resp', model: 'm', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'tool_calls' }] }) }),
        ...d.end(),
      ];
    };
    const first = collectStream(make()).reply.parts[0];
    expect(first).toMatchObject({ type: 'tool_call', name: 'f' });
    expect(first.type === 'tool_call' && first.id).toMatch(/^call_[0-9a-f]{16}$/);
    expect(collectStream(make()).reply.parts[0]).toEqual(first);
  });

  it('reports a chunk that is not JSON as an error', () => {
    const d = new ChatStreamDecoder();
    expect(d.push({ data: '{oops' })).toMatchObject([{ type: 'error' }]);
    expect(d.end()).toEqual([]);
  });
});
