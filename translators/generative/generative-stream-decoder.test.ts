import { describe, expect, it } from 'vitest';
import { readSseFixture } from '../../test/helpers/sse-fixtures.ts';
import type { StreamEvent } from '../model.ts';
import { GenerativeStreamDecoder } from './generative-stream-decoder.ts';

function decode(name: string): StreamEvent[] {
  const d = new GenerativeStreamDecoder();
  return [...readSseFixture('generative', name).flatMap((m) => d.push(m)), ...d.end()];
}

describe('GenerativeStreamDecoder', () => {
  it('decodes a text stream with the finish chunk carrying usage', () => {
    expect(decode('text.sse.txt')).toEqual([
      { type: 'start', id: 'gX6LaKmWFpa1nvgPi8-3mAU', model: 'gemini-2.5-flash' },
      { type: 'part_start', index: 0, part: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'The sky' },
      { type: 'text_delta', index: 0, text: ' is blue because of Rayleigh scattering.' },
      { type: 'part_end', index: 0 },
      { type: 'usage', usage: { inputTokens: 8, outputTokens: 10, cacheReadTokens: 0, reasoningTokens: 0, source: 'reported' } },
      { type: 'stop', reason: 'end' },
    ]);
  });

  it('decodes text and parallel calls from one chunk, with distinct ids and the call signature (CRLF framing)', () => {
    const events = decode('parallel-tool-calls.sse.txt');
    expect(events.slice(1, 12)).toEqual([
      { type: 'part_start', index: 0, part: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Checking both cities.' },
      { type: 'part_end', index: 0 },
      { type: 'part_start', index: 1, part: { kind: 'tool_call', id: 'gcall_pF7LaJ2xK9-1nvgP2s6YsA_0', name: 'get_weather' } },
      { type: 'tool_args_delta', index: 1, json: '{"city":"Oslo"}' },
      { type: 'signature', index: 1, signature: 'CiQB0e2Kb3sigA==', origin: 'generative' },
      { type: 'part_end', index: 1 },
      { type: 'part_start', index: 2, part: { kind: 'tool_call', id: 'gcall_pF7LaJ2xK9-1nvgP2s6YsA_1', name: 'get_weather' } },
      { type: 'tool_args_delta', index: 2, json: '{"city":"Paris"}' },
      { type: 'part_end', index: 2 },
      { type: 'usage', usage: { inputTokens: 52, outputTokens: 95, cacheReadTokens: 0, reasoningTokens: 61, source: 'reported' } },
    ]);
    expect(events.at(-1)).toEqual({ type: 'stop', reason: 'tool_use' });
  });

  it('decodes thoughts and keeps the trailing signature as a signed empty thinking part', () => {
    const events = decode('thinking.sse.txt');
    expect(events.slice(1)).toEqual([
      { type: 'part_start', index: 0, part: { kind: 'thinking' } },
      { type: 'thinking_delta', index: 0, text: '**Working out the sum**\n\nI add the two numbers.' },
      { type: 'part_end', index: 0 },
      { type: 'part_start', index: 1, part: { kind: 'text' } },
      { type: 'text_delta', index: 1, text: '2 + 2 = 4.' },
      { type: 'part_end', index: 1 },
      { type: 'part_start', index: 2, part: { kind: 'thinking' } },
      { type: 'signature', index: 2, signature: 'EpoCCpcCAdHtim9sig==', origin: 'generative' },
      { type: 'part_end', index: 2 },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 285, cacheReadTokens: 4, reasoningTokens: 256, source: 'reported' } },
      { type: 'stop', reason: 'end' },
    ]);
  });

  it('maps MAX_TOKENS and SAFETY finishes', () => {
    expect(decode('max-tokens.sse.txt').at(-1)).toEqual({ type: 'stop', reason: 'max_tokens' });
    expect(decode('safety.sse.txt').slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 14, outputTokens: 0, cacheReadTokens: 0, reasoningTokens: 0, source: 'reported' } },
      { type: 'stop', reason: 'content_filter' },
    ]);
  });

  it('ends with an error on an error frame, carrying the usage seen so far', () => {
    const events = decode('error.sse.txt');
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 7, outputTokens: 0, cacheReadTokens: 0, reasoningTokens: 0, source: 'reported' } },
      { type: 'error', error: { status: 503, type: 'overloaded', message: 'The model is overloaded. Please try again later.', code: 'UNAVAILABLE' } },
    ]);
    expect(events.filter((e) => e.type === 'stop')).toEqual([]);
  });

  it('ends a stream cut short with an error, never a clean stop', () => {
    const events = decode('cut-short.sse.txt');
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e.type === 'text_delta' ? e.text : ''))).toEqual(['Step one: open the', ' file and']);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { type: 'server', status: 502 } });
    expect(events.some((e) => e.type === 'stop')).toBe(false);
  });

  it('turns a chunk that is not JSON into an error instead of throwing, and ignores what follows', () => {
    const d = new GenerativeStreamDecoder();
    expect(d.push({ data: '{"candidates": [' })).toMatchObject([{ type: 'error' }]);
    expect(d.push({ data: '{"candidates":[{"finishReason":"STOP"}]}' })).toEqual([]);
    expect(d.end()).toEqual([]);
  });
});
