import { describe, expect, it } from 'vitest';
import { generateSession, DEFAULT_SESSION } from '../test/compression/agent-session.ts';
import { toolPairIds } from '../bench/compression/check-session.ts';
import { DEFAULT_COMPRESS_OPTIONS } from './compress-options.ts';
import { compressConversation } from './compress-conversation.ts';
import { spanHash, summaryMarker, summarySpanAt } from './summary-span.ts';

const { conversation } = generateSession({ ...DEFAULT_SESSION, seed: 3, rounds: 80 });
const opts = DEFAULT_COMPRESS_OPTIONS;
const withTurns = (n: number) => ({ ...conversation, turns: conversation.turns.slice(0, n) });

describe('summaries of the oldest turns', () => {
  it('ends a span before an assistant turn and ignores cache markers in its hash', () => {
    const span = summarySpanAt(conversation.turns, 41, 0)!;
    expect(conversation.turns[span.end].role).toBe('assistant');
    expect(span.end).toBeLessThanOrEqual(41);
    const marked = conversation.turns.slice(0, span.end).map((t, i) => (i === 1 ? { ...t, parts: t.parts.map((p) => ({ ...p, cache: { type: 'ephemeral' as const } })) } : t));
    expect(spanHash(marked)).toBe(span.hash);
    expect(summarySpanAt(conversation.turns, 41, 1e9)).toBeUndefined();
  });

  it('replaces the span of the step before from the second step on, with every later tool pair intact, the same on every turn of a step', () => {
    const asked = new Set<string>();
    const lookup = (hash: string) => (asked.add(hash), 'SUMMARY');
    let previous: { level: number; turns: string } | undefined;
    let used = 0;
    for (let n = 3; n <= conversation.turns.length; n += 2) {
      const r = compressConversation(withTurns(n), opts, { lookup, minTokens: 0 });
      if (r.frontier.level < 1) {
        expect(r.summary).toBeUndefined();
        continue;
      }
      expect(r.summary?.used).toBe(true);
      used++;
      const turns = r.conversation.turns;
      const first = turns[0].parts[0];
      expect(first.type === 'text' && first.text.startsWith(summaryMarker(r.summary!.end))).toBe(true);
      expect(turns[1].role).toBe('assistant');
      expect(toolPairIds(turns.slice(1))).toEqual(toolPairIds(conversation.turns.slice(r.summary!.end, n)));
      // Within a step, each request's history starts with the previous one's (the cached prefix holds).
      const text = JSON.stringify(turns.slice(0, turns.length - opts.keepLastTurns));
      if (previous?.level === r.frontier.level) expect(text.startsWith(previous.turns.slice(0, -1))).toBe(true);
      previous = { level: r.frontier.level, turns: text };
    }
    expect(used).toBeGreaterThan(0);
    expect(asked.size).toBeGreaterThan(1);
  });

  it('compresses as without summaries when none is ready', () => {
    const n = conversation.turns.length;
    const plain = compressConversation(withTurns(n), opts);
    const none = compressConversation(withTurns(n), opts, { lookup: () => undefined, minTokens: 0 });
    expect(none.conversation).toEqual(plain.conversation);
    expect(none.summary?.used).toBe(false);
  });
});
