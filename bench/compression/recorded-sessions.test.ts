import { describe, expect, it } from 'vitest';
import { compressConversation } from '../../compressor/compress-conversation.ts';
import { DEFAULT_COMPRESS_OPTIONS } from '../../compressor/compress-options.ts';
import { checkSession, toolOutputText, toolPairIds } from './check-session.ts';
import { recordedSessions } from './recorded-sessions.ts';
import { AUTOMATIC_CACHE, MESSAGES_CACHE, replaySession } from './replay-session.ts';

const sessions = recordedSessions();

describe('recorded agent sessions', () => {
  it('hold a short and a long session of each agent, in its own style', () => {
    expect(sessions.map((s) => [s.name.replace(/ [\d.]+$/, ''), s.style, s.reads])).toEqual([
      ['Claude Code', 'messages', 40], ['Claude Code', 'messages', 13], ['Codex CLI', 'responses', 40], ['Codex CLI', 'responses', 13],
      ['Gemini CLI', 'generative', 40], ['Gemini CLI', 'generative', 13],
    ]);
    // The long ones are past 50 k tokens, as the compression targets ask.
    for (const s of sessions.filter((x) => x.reads === 40)) expect(replaySession(s.conversation, undefined, [MESSAGES_CACHE]).lastTokens).toBeGreaterThan(50_000);
  });

  it.each(sessions.map((s) => [s.name, s] as const))('%s: decodes with every tool pair and span, and compresses keeping them', (_n, s) => {
    const ids = toolPairIds(s.conversation.turns);
    // The tour's reads, the clue and the secret: each call with its result.
    expect(ids.filter((x) => x.startsWith('call:'))).toHaveLength(s.reads + 2);
    expect(ids.filter((x) => x.startsWith('result:'))).toHaveLength(s.reads + 2);
    for (const span of s.spans) expect(toolOutputText(s.conversation)).toContain(span);
    const compressed = compressConversation(s.conversation, { ...DEFAULT_COMPRESS_OPTIONS, minTokens: 4000 }).conversation;
    expect(checkSession(s, compressed)).toEqual({ brokenPairs: 0, spansKept: s.spans.length });
    // The agent sent one request for its task and one after each result.
    expect(replaySession(s.conversation, undefined, [MESSAGES_CACHE]).requests).toBe(s.reads + 3);
  });

  it.each(sessions.map((s) => [s.name, s.reads, s] as const))('%s, %i reads: no dearer with compression at the defaults, under either cache', (_n, _r, s) => {
    const plain = replaySession(s.conversation, undefined, [MESSAGES_CACHE, AUTOMATIC_CACHE]);
    const compressed = replaySession(s.conversation, DEFAULT_COMPRESS_OPTIONS, [MESSAGES_CACHE, AUTOMATIC_CACHE]);
    expect(compressed.cost[0]).toBeLessThanOrEqual(plain.cost[0]);
    expect(compressed.cost[1]).toBeLessThanOrEqual(plain.cost[1]);
  });
});
