import { describe, expect, it } from 'vitest';
import type { Conversation, Turn } from '../../translators/model.ts';
import { DEFAULT_COMPRESS_OPTIONS } from '../../compressor/compress-options.ts';
import { AUTOMATIC_CACHE, MESSAGES_CACHE, replaySession } from './replay-session.ts';

const text = (role: Turn['role'], chars: number): Turn => ({ role, parts: [{ type: 'text', text: 'x'.repeat(chars) }] });
const conv = (turns: Turn[]): Conversation => ({ model: 'm', system: [], turns, tools: [], sampling: {}, stream: false, extras: {}, warnings: [] });

describe('replaySession', () => {
  it('sends one request per user turn and prices the repeated history as cache reads', () => {
    // Turns of 400 characters = 100 tokens; system and tools "[]" + "[]" = 1 token, read from the cache after the first.
    const c = conv([text('user', 400), text('assistant', 400), text('user', 400)]);
    const r = replaySession(c, undefined, [MESSAGES_CACHE, AUTOMATIC_CACHE]);
    expect(r.requests).toBe(2);
    expect(r.inputTokens).toBe(101 + 301);
    expect(r.lastTokens).toBe(301);
    // First request: 101 written. Second: 101 read (system + first turn), 200 written.
    expect(r.cost[0]).toBeCloseTo(101 * 1.25 + 101 * 0.1 + 200 * 1.25);
    expect(r.cost[1]).toBeCloseTo(101 + 101 * 0.1 + 200);
    expect(r.cacheBreaks).toBe(0);
  });

  it('counts a rewrite of what was sent as a cache break, paid as a write', () => {
    const turns: Turn[] = [];
    for (let i = 0; i < 40; i++) {
      turns.push({ role: 'assistant', parts: [{ type: 'tool_call', id: `c${i}`, name: 'Read', arguments: {}, argumentsText: '{}' }] });
      turns.push({ role: 'user', parts: [{ type: 'tool_result', callId: `c${i}`, content: [{ type: 'text', text: 'same output line\n'.repeat(400) }], isError: false }] });
    }
    const c = conv([text('user', 40), ...turns]);
    const plain = replaySession(c, undefined, [MESSAGES_CACHE]);
    const compressed = replaySession(c, { ...DEFAULT_COMPRESS_OPTIONS, minTokens: 4000 }, [MESSAGES_CACHE]);
    expect(compressed.cacheBreaks).toBeGreaterThan(0);
    expect(compressed.inputTokens).toBeLessThan(plain.inputTokens);
    expect(compressed.msPer100k.length).toBe(compressed.requests);
  });
});
