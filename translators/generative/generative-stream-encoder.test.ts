import { describe, expect, it } from 'vitest';
import { readSseFixture } from '../../test/helpers/sse-fixtures.ts';
import type { StreamEvent } from '../model.ts';
import { GenerativeJsonArrayWriter } from './generative-json-array.ts';
import { GenerativeStreamDecoder } from './generative-stream-decoder.ts';
import { type GenerativeStreamChunk, GenerativeStreamEncoder } from './generative-stream-encoder.ts';

function encode(events: StreamEvent[]): GenerativeStreamChunk[] {
  const e = new GenerativeStreamEncoder();
  return [...events.flatMap((ev) => e.push(ev)), ...e.end()];
}

describe('GenerativeStreamEncoder', () => {
  it('encodes text, thinking, buffered parallel calls, and a final chunk with finishReason and usage', () => {
    const chunks = encode([
      { type: 'start', id: 'msg_1', model: 'claude-x' },
      { type: 'part_start', index: 0, part: { kind: 'thinking' } },
      { type: 'thinking_delta', index: 0, text: 'Let me see.' },
      { type: 'signature', index: 0, signature: 'anthropic-sig', origin: 'messages' },
      { type: 'part_end', index: 0 },
      { type: 'part_start', index: 1, part: { kind: 'text' } },
      { type: 'text_delta', index: 1, text: 'Checking.' },
      { type: 'part_end', index: 1 },
      { type: 'part_start', index: 2, part: { kind: 'tool_call', id: 'call_a', name: 'get_w' } },
      { type: 'part_start', index: 3, part: { kind: 'tool_call', id: 'call_b', name: 'get_w' } },
      { type: 'tool_args_delta', index: 2, json: '{"city":' },
      { type: 'tool_args_delta', index: 3, json: '{"city":"Paris"}' },
      { type: 'tool_args_delta', index: 2, json: '"Oslo"}' },
      { type: 'part_end', index: 3 },
      { type: 'part_end', index: 2 },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 20, reasoningTokens: 5, cacheReadTokens: 2, source: 'reported' } },
      { type: 'stop', reason: 'tool_use' },
    ]);
    const meta = { modelVersion: 'claude-x', responseId: 'msg_1' };
    const c = (parts: unknown[]) => ({ candidates: [{ content: { role: 'model', parts }, index: 0 }], ...meta });
    expect(chunks).toEqual([
      c([{ text: 'Let me see.', thought: true }]),
      c([{ text: 'Checking.' }]),
      c([{ functionCall: { id: 'call_b', name: 'get_w', args: { city: 'Paris' } } }]),
      c([{ functionCall: { id: 'call_a', name: 'get_w', args: { city: 'Oslo' } } }]),
      {
        candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, index: 0, finishReason: 'STOP' }], ...meta,
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 15, thoughtsTokenCount: 5, cachedContentTokenCount: 2, totalTokenCount: 32 },
      },
    ]);
  });

  it('sends an error event as an error chunk and nothing after it', () => {
    const e = new GenerativeStreamEncoder();
    expect(e.push({ type: 'error', error: { status: 429, type: 'rate_limit', message: 'Slow down.', retryAfter: 7 } })).toEqual([
      { error: { code: 429, message: 'Slow down.', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }] } },
    ]);
    expect(e.push({ type: 'stop', reason: 'end' })).toEqual([]);
    expect(e.end()).toEqual([]);
  });

  it('turns a stream that ends without a terminal event into an error chunk', () => {
    expect(encode([{ type: 'start', id: 'a', model: 'm' }])).toMatchObject([{ error: { code: 502, status: 'INTERNAL' } }]);
  });

  it('re-encodes a recorded Gemini stream to the same text, calls, signatures and finish', () => {
    const d = new GenerativeStreamDecoder();
    const events = [...readSseFixture('generative', 'parallel-tool-calls.sse.txt').flatMap((m) => d.push(m)), ...d.end()];
    const parts = encode(events).flatMap((ch) => ('candidates' in ch ? ch.candidates?.[0].content?.parts ?? [] : []));
    expect(parts).toEqual([
      { text: 'Checking both cities.' },
      { functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'CiQB0e2Kb3sigA==' },
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
      { text: '' },
    ]);
  });
});

describe('GenerativeJsonArrayWriter', () => {
  it('frames chunks as one JSON array', () => {
    const w = new GenerativeJsonArrayWriter();
    const body = w.write({ a: 1 }) + w.write({ b: 2 }) + w.end();
    expect(body).toBe('[{"a":1},\r\n{"b":2}]');
    expect(JSON.parse(body)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(new GenerativeJsonArrayWriter().end()).toBe('[]');
  });
});
