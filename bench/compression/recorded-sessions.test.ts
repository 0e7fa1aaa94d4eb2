import { describe, expect, it } from 'vitest';
import { compressConversation } from '../../compressor/compress-conversation.ts';
import { DEFAULT_COMPRESS_OPTIONS } from '../../compressor/compress-options.ts';
import { checkSession, toolOutputText, toolPairIds } from './check-session.ts';
import { recordedSessions } from './recorded-sessions.ts';
import { MESSAGES_CACHE, replaySession } from './replay-session.ts';

const sessions = recordedSessions();

describe('recorded agent sessions', () => {
  it('hold one session of each agent, in its own style', () => {
    expect(sessions.map((s) => [s.name.replace(/ [\d.]+$/, ''), s.style])).toEqual([
      ['Claude Code', 'messages'], ['Codex CLI', 'responses'], ['Gemini CLI', 'generative'],
    ]);
  });

  it.each(sessions.map((s) => [s.name, s] as const))('%s: decodes with every tool pair and span, and compresses keeping them', (_n, s) => {
    const ids = toolPairIds(s.conversation.turns);
    // A tour of 13 reads, the clue and the secret: 15 calls, each with its result.
    expect(ids.filter((x) => x.startsWith('call:'))).toHaveLength(15);
    expect(ids.filter((x) => x.startsWith('result:'))).toHaveLength(15);
    for (const span of s.spans) expect(toolOutputText(s.conversation)).toContain(span);
    const compressed = compressConversation(s.conversation, { ...DEFAULT_COMPRESS_OPTIONS, minTokens: 4000 }).conversation;
    expect(checkSession(s, compressed)).toEqual({ brokenPairs: 0, spansKept: s.spans.length });
    // The agent sent one request for its task and one after each result.
    expect(replaySession(s.conversation, undefined, [MESSAGES_CACHE]).requests).toBe(16);
  });
});
