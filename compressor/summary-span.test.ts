import { describe, expect, it } from 'vitest';
import { generateSession, DEFAULT_SESSION } from '../test/compression/agent-session.ts';
import { toolPairIds } from '../bench/compression/check-session.ts';
import type { Turn } from '../translators/model.ts';
import { DEFAULT_COMPRESS_OPTIONS } from './compress-options.ts';
import { compressConversation } from './compress-conversation.ts';
import { requestsToNextStep } from './frontier.ts';
import { nextSpan, spanHash, summaryMarker, summarySpans, summaryToMake } from './summary-span.ts';

const { conversation } = generateSession({ ...DEFAULT_SESSION, seed: 3, rounds: 80 });
const opts = DEFAULT_COMPRESS_OPTIONS;
const withTurns = (n: number) => ({ ...conversation, turns: conversation.turns.slice(0, n) });
const textOf = (t: Turn) => (t.parts[0]?.type === 'text' ? t.parts[0].text : '');
const isSummary = (t: Turn) => t.role === 'user' && textOf(t).startsWith('[svc: a summary of ');

describe('summaries of old turns', () => {
  it('ends a span before an assistant turn and ignores cache markers in its hash', () => {
    const span = nextSpan(conversation.turns, [], 41, 0)!;
    expect(span.start).toBe(0);
    expect(conversation.turns[span.end].role).toBe('assistant');
    expect(span.end).toBeLessThanOrEqual(41);
    const marked = conversation.turns.slice(0, span.end).map((t, i) => (i === 1 ? { ...t, parts: t.parts.map((p) => ({ ...p, cache: { type: 'ephemeral' as const } })) } : t));
    expect(spanHash(marked)).toBe(span.hash);
    expect(nextSpan(conversation.turns, [], 41, 1e9)).toBeUndefined();
  });

  it('chains spans: each starts where the last summarised one ended; one without a summary joins the next', () => {
    const all = summarySpans(conversation.turns, [21, 41, 61], 0, () => 'S');
    expect(all.map((s) => [s.start, s.end > s.start])).toEqual([[0, true], [all[0].end, true], [all[1].end, true]]);
    expect(all[1].hash).toBe(spanHash(conversation.turns.slice(all[1].start, all[1].end)));
    // The first span has no summary: the second starts at the first turn too.
    const missing = summarySpans(conversation.turns, [21, 41, 61], 0, (h) => (h === all[0].hash ? undefined : 'S'));
    expect(missing.map((s) => s.start)).toEqual([0, 0, missing[1].end]);
    expect(nextSpan(conversation.turns, all, 81, 0)?.start).toBe(all[2].end);
  });

  it('replaces the spans up to the step before, keeps later tool pairs and alternating roles, and rewrites from the newest span only', () => {
    const asked = new Set<string>();
    const lookup = (hash: string) => (asked.add(hash), `SUMMARY ${hash.slice(0, 6)}`);
    let previous: { level: number; turns: Turn[] } | undefined;
    let used = 0;
    let steps = 0;
    for (let n = 3; n <= conversation.turns.length; n += 2) {
      const r = compressConversation(withTurns(n), opts, { lookup, minTokens: 0 });
      if (r.frontier.level < 1) {
        expect(r.summary).toBeUndefined();
        continue;
      }
      expect(r.summary?.used).toBe(true);
      used++;
      const turns = r.conversation.turns;
      const first = Number(/^\[svc: a summary of the first (\d+) turns/.exec(textOf(turns[0]))?.[1]);
      expect(textOf(turns[0]).startsWith(summaryMarker({ start: 0, end: first }))).toBe(true);
      // Roles alternate through the summaries, and every summary is followed by an assistant turn.
      for (let i = 1; i < turns.length; i++) if (isSummary(turns[i - 1]) || isSummary(turns[i])) expect(turns[i].role).not.toBe(turns[i - 1].role);
      const kept = turns.filter((t) => !isSummary(t) && !textOf(t).startsWith('[svc: turns '));
      const from = r.summary!.end;
      expect(toolPairIds(kept)).toEqual(toolPairIds(conversation.turns.slice(from, n)));
      if (previous?.level === r.frontier.level) {
        // Within a step, each request's history starts with the previous one's (the cached prefix holds).
        expect(JSON.stringify(turns.slice(0, previous.turns.length - 1))).toBe(JSON.stringify(previous.turns.slice(0, -1)));
      } else if (previous !== undefined) {
        // A step keeps every summary already sent: the rewrite starts at the newest span, not at the first turn.
        const lastSummary = previous.turns.findLastIndex(isSummary);
        if (lastSummary >= 0) {
          expect(JSON.stringify(turns.slice(0, lastSummary + 1))).toBe(JSON.stringify(previous.turns.slice(0, lastSummary + 1)));
          steps++;
        }
      }
      previous = { level: r.frontier.level, turns };
    }
    expect(used).toBeGreaterThan(0);
    expect(steps).toBeGreaterThan(1);
    expect(asked.size).toBeGreaterThan(2);
  });

  it('compresses as without summaries when none is ready', () => {
    const n = conversation.turns.length;
    const plain = compressConversation(withTurns(n), opts);
    const none = compressConversation(withTurns(n), opts, { lookup: () => undefined, minTokens: 0 });
    expect(none.conversation).toEqual(plain.conversation);
    expect(none.summary?.used).toBe(false);
  });

  it('asks for the next span only when its call pays: not right after a step, nor with a dear summary model', () => {
    const cheap = { input: 0.05, output: 0.2, summaryTokens: 2_048 };
    const dear = { input: 100, output: 500, summaryTokens: 2_048 };
    const none = () => undefined;
    let made = 0;
    let atStep = 0;
    for (let n = 3; n <= conversation.turns.length; n += 2) {
      const turns = conversation.turns.slice(0, n);
      const r = compressConversation(withTurns(n), opts);
      const ask = (prices: typeof cheap) => summaryToMake(turns, r.frontier, r.beforeTokens, opts.growth, { lookup: none, minTokens: 8_000 }, prices);
      const next = ask(cheap);
      if (r.frontier.level >= 0 && r.frontier.requests === r.frontier.stepRequests) {
        // The request that took the step: no pace towards the next one yet.
        atStep++;
        expect(next).toBeUndefined();
      }
      if (next === undefined) continue;
      made++;
      // The span the gateway asks for is the chain's next link; its step is near.
      const chain = summarySpans(turns, r.frontier.steps.slice(0, -1), 8_000, none);
      expect(next.span).toEqual(nextSpan(turns, chain, r.frontier.steps.at(-1)!, 8_000));
      expect(next.earlier).toEqual([]);
      expect(requestsToNextStep({ frontier: r.frontier, tokens: r.beforeTokens, growth: opts.growth })! * 3).toBeLessThanOrEqual(r.frontier.requests);
      // A summary model this dear does not pay for the same span.
      expect(ask(dear)).toBeUndefined();
    }
    expect(atStep).toBeGreaterThan(0);
    expect(made).toBeGreaterThan(0);
  });
});
