import { describe, expect, it } from 'vitest';
import { compressConversation } from '../../compressor/compress-conversation.ts';
import type { Turn } from '../../translators/model.ts';
import { DEFAULT_COMPRESS_OPTIONS } from '../../compressor/compress-options.ts';
import { checkSession, toolOutputText, toolPairIds } from './check-session.ts';
import { recordedSessions } from './recorded-sessions.ts';
import { AUTOMATIC_CACHE, MESSAGES_CACHE, replaySession } from './replay-session.ts';

const sessions = recordedSessions();

describe('recorded agent sessions', () => {
  it('hold a debugging loop, the long tour followed by that loop, and a short and a long file tour of each agent, in its own style', () => {
    const tasks = (agent: string, style: string) => ['debugging loop', 'long tour, then debugging loop', '40 reads', '13 reads'].map((t) => [agent, style, t]);
    expect(sessions.map((s) => [s.name.replace(/ [\d.]+$/, ''), s.style, s.label])).toEqual([
      ...tasks('Claude Code', 'messages'), ...tasks('Codex CLI', 'responses'), ...tasks('Gemini CLI', 'generative'), ...tasks('Qwen Code', 'chat'),
    ]);
    // The long tours are past 50 k tokens, as the compression targets ask; so are the debugging loops but Codex CLI's,
    // which ends at 49.6 k (it cuts the middle of long command outputs), and the tours followed by a loop past 100 k
    // but Gemini CLI's, which ends at 82.8 k (it masks its old tool outputs itself from some size on).
    const last = (s: (typeof sessions)[number]) => replaySession(s.conversation, undefined, [MESSAGES_CACHE]).lastTokens;
    for (const s of sessions.filter((x) => x.label === '40 reads')) expect(last(s)).toBeGreaterThan(50_000);
    for (const s of sessions.filter((x) => x.task === 'debugging loop')) expect(last(s)).toBeGreaterThan(s.style === 'responses' ? 45_000 : 50_000);
    for (const s of sessions.filter((x) => x.task === 'long tour, then debugging loop')) expect(last(s)).toBeGreaterThan(s.style === 'generative' ? 80_000 : 100_000);
    // A debugging loop's marked spans are the four assertions that failed.
    for (const s of sessions.filter((x) => x.task !== 'file tour')) expect(s.spans).toHaveLength(4);
  });

  it.each(sessions.map((s) => [`${s.name}, ${s.label}`, s] as const))('%s: decodes with every tool pair and span, and compresses keeping them', (_n, s) => {
    const ids = toolPairIds(s.conversation.turns);
    // The tour's reads, the clue and the secret, or the loop's steps: each call with its result.
    expect(ids.filter((x) => x.startsWith('call:'))).toHaveLength(s.toolCalls);
    expect(ids.filter((x) => x.startsWith('result:'))).toHaveLength(s.toolCalls);
    for (const span of s.spans) expect(toolOutputText(s.conversation)).toContain(span);
    const compressed = compressConversation(s.conversation, { ...DEFAULT_COMPRESS_OPTIONS, minTokens: 4000 }).conversation;
    expect(checkSession(s, compressed)).toEqual({ brokenPairs: 0, spansKept: s.spans.length });
    // The agent sent one request for its task and one after each result.
    expect(replaySession(s.conversation, undefined, [MESSAGES_CACHE]).requests).toBe(s.toolCalls + 1);
  });

  // The debugging loops of Claude Code and Codex CLI are dearer with compression (docs/compression.md, "Not done
  // yet"): their test is expected to fail, so that a change which makes them no dearer shows here.
  const dearer = ['Claude Code, debugging loop', 'Codex CLI, debugging loop'];
  for (const s of sessions) {
    const name = `${s.name.replace(/ [\d.]+$/, '')}, ${s.label}`;
    (dearer.includes(name) ? it.fails : it)(`${name}: no dearer with compression at the defaults, under either cache`, () => {
      const plain = replaySession(s.conversation, undefined, [MESSAGES_CACHE, AUTOMATIC_CACHE]);
      const compressed = replaySession(s.conversation, DEFAULT_COMPRESS_OPTIONS, [MESSAGES_CACHE, AUTOMATIC_CACHE]);
      expect(compressed.cost[0]).toBeLessThanOrEqual(plain.cost[0]);
      expect(compressed.cost[1]).toBeLessThanOrEqual(plain.cost[1]);
    });
  }

  // The savings report (control-plane/settings/compression-report.ts) judges `on` from the compression records alone:
  // the tokens each call saved, read from the cache, less each cache break's rewrite (the level's stepRewritten)
  // written instead of read. On every recorded session that estimate is the exact replay's bill, within 1 %.
  it.each(sessions.map((s) => [`${s.name}, ${s.label}`, s] as const))('%s: the savings report\'s net is the replay\'s', (_n, s) => {
    let saved = 0;
    let rewritten = 0;
    let level = -1;
    const turns: Turn[] = [];
    for (const [i, t] of s.conversation.turns.entries()) {
      turns.push(t);
      const next = s.conversation.turns[i + 1];
      if (t.role === 'assistant' || (next !== undefined && next.role !== 'assistant')) continue;
      const r = compressConversation({ ...s.conversation, turns }, DEFAULT_COMPRESS_OPTIONS);
      saved += r.beforeTokens - r.afterTokens;
      if (r.frontier.level !== level) rewritten += r.frontier.stepRewritten;
      level = r.frontier.level;
    }
    const plain = replaySession(s.conversation, undefined, [MESSAGES_CACHE]).cost[0];
    const compressed = replaySession(s.conversation, DEFAULT_COMPRESS_OPTIONS, [MESSAGES_CACHE]).cost[0];
    const estimate = MESSAGES_CACHE.read * saved - (MESSAGES_CACHE.write - MESSAGES_CACHE.read) * rewritten;
    expect(Math.abs(estimate - (plain - compressed))).toBeLessThan(0.01 * plain);
  });
});
