import { describe, expect, it } from 'vitest';
import type { Conversation, Part, Turn } from '../translators/model.ts';
import { generateSession, DEFAULT_SESSION } from '../test/compression/agent-session.ts';
import { DEFAULT_COMPRESS_OPTIONS, type CompressOptions } from './compress-options.ts';
import { compressConversation, duplicateMarker, duplicateRestMarker } from './compress-conversation.ts';
import { toolOutputText, toolPairIds } from '../bench/compression/check-session.ts';

const opts: CompressOptions = { ...DEFAULT_COMPRESS_OPTIONS, lossyAtTokens: 30_000 };

function withTurns(conv: Conversation, n: number): Conversation {
  return { ...conv, turns: conv.turns.slice(0, n) };
}

const SEEDS = [1, 2, 3, 4, 5, 6];

describe('compressConversation', () => {
  it('is deterministic and does not change its input', () => {
    for (const seed of SEEDS) {
      const { conversation } = generateSession({ ...DEFAULT_SESSION, seed });
      const copy = structuredClone(conversation);
      const a = compressConversation(conversation, opts);
      const b = compressConversation(structuredClone(conversation), opts);
      expect(JSON.stringify(a.conversation)).toBe(JSON.stringify(b.conversation));
      expect(conversation).toEqual(copy);
    }
  });

  it('is prefix-stable: a later turn starts with the earlier compressed history while the level holds', () => {
    for (const seed of SEEDS.slice(0, 3)) {
      const { conversation } = generateSession({ ...DEFAULT_SESSION, seed, rounds: 100 });
      let prev = compressConversation(withTurns(conversation, 1), opts);
      let breaks = 0;
      let levels = 0;
      for (let n = 2; n <= conversation.turns.length; n++) {
        const cur = compressConversation(withTurns(conversation, n), opts);
        const stable = prev.conversation.turns.every((t, i) => JSON.stringify(t) === JSON.stringify(cur.conversation.turns[i]));
        if (cur.frontier.level !== prev.frontier.level) levels++;
        if (!stable) {
          breaks++;
          // A rewrite of what was sent before happens only when the frontier moved up a level.
          expect(cur.frontier.index).toBeGreaterThanOrEqual(prev.frontier.index);
          expect(cur.frontier.level).not.toBe(prev.frontier.level);
        }
        prev = cur;
      }
      // At most one break per growth level, plus one when the last-turns rule held the frontier back.
      expect(breaks).toBeLessThanOrEqual(2 * levels);
      expect(breaks).toBeGreaterThan(0);
    }
  });

  it('keeps every tool pair, every marked span, the system prompt, the tools and the last turns', () => {
    for (const seed of SEEDS) {
      const { conversation, spans } = generateSession({ ...DEFAULT_SESSION, seed, rounds: 120 });
      const r = compressConversation(conversation, opts);
      const out = r.conversation;
      expect(r.afterTokens).toBeLessThan(r.beforeTokens * 0.8);
      expect(toolPairIds(out.turns)).toEqual(toolPairIds(conversation.turns));
      expect(out.system).toBe(conversation.system);
      expect(out.tools).toBe(conversation.tools);
      const outputs = toolOutputText(out);
      for (const s of spans) expect(outputs).toContain(s);
      const last = conversation.turns.length - opts.keepLastTurns;
      for (let i = last; i < conversation.turns.length; i++) expect(out.turns[i]).toBe(conversation.turns[i]);
      for (let i = r.frontier.index; i < conversation.turns.length; i++) expect(out.turns[i]).toBe(conversation.turns[i]);
    }
  });

  it('replaces a repeated output by a reference to the first copy and keeps cache markers and media', () => {
    const file = Array.from({ length: 400 }, (_, i) => `line ${i} of the file`).join('\n');
    const image: Part = { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } };
    const turns: Turn[] = [{ role: 'user', parts: [{ type: 'text', text: 'read it twice' }, image] }];
    for (let i = 0; i < 12; i++) {
      turns.push({ role: 'assistant', parts: [{ type: 'tool_call', id: `c${i}`, name: 'Read', arguments: {}, argumentsText: '{}' }] });
      turns.push({ role: 'user', parts: [{ type: 'tool_result', callId: `c${i}`, content: [{ type: 'text', text: file, cache: { type: 'ephemeral' } }], isError: false }] });
    }
    const conv: Conversation = { model: 'm', system: [], turns, tools: [], sampling: {}, stream: false, extras: {}, warnings: [] };
    const r = compressConversation(conv, { ...opts, minTokens: 4000 });
    expect(r.frontier.index).toBeGreaterThan(4);
    const results = r.conversation.turns.slice(0, r.frontier.index).flatMap((t) => t.parts).filter((p) => p.type === 'tool_result');
    expect(results[0].type === 'tool_result' && results[0].content).toEqual([{ type: 'text', text: file, cache: { type: 'ephemeral' } }]);
    expect(results[1].type === 'tool_result' && results[1].content).toEqual([{ type: 'text', text: duplicateMarker('c0'), cache: { type: 'ephemeral' } }]);
    expect(r.conversation.turns[0]).toBe(turns[0]);
    expect(r.saved.duplicates).toBeGreaterThan(0);
  });

  it('references the identical rest of an output whose first lines of the tool differ, and keeps those lines', () => {
    const file = Array.from({ length: 300 }, (_, i) => `line ${i} of the file`).join('\n');
    const own = (i: number) => `Chunk ID: ${i}f0a\nWall time: 0.00${i} seconds\n`;
    const header = (i: number) => `${own(i)}Process exited with code 0\nOutput:\n`;
    const outputs = [
      `${header(0)}${file}`, `${header(1)}${file}`, `${header(2)}${file}\none more line`, `${header(3)}short\nrest`,
      `${header(4)}short\nrest`, `${header(0)}${file}`, 'filler', 'filler', 'filler', 'filler',
    ];
    const turns: Turn[] = [{ role: 'user', parts: [{ type: 'text', text: 'read them' }] }];
    for (const [i, text] of outputs.entries()) {
      turns.push({ role: 'assistant', parts: [{ type: 'tool_call', id: `c${i}`, name: 'exec', arguments: {}, argumentsText: '{}' }] });
      turns.push({ role: 'user', parts: [{ type: 'tool_result', callId: `c${i}`, content: [{ type: 'text', text }], isError: false }] });
    }
    const conv: Conversation = { model: 'm', system: [], turns, tools: [], sampling: {}, stream: false, extras: {}, warnings: [] };
    // A step at every turn, and no lossy cut: only the references change the outputs.
    const r = compressConversation(conv, { ...opts, minTokens: 100, growth: 1.0001, lossyAtTokens: 1e9 });
    expect(r.frontier.index).toBeGreaterThan(12);
    const text = (k: number) => {
      const p = r.conversation.turns[2 * k + 2].parts[0];
      return p.type === 'tool_result' && p.content[0].type === 'text' ? p.content[0].text : '';
    };
    expect(text(0)).toBe(outputs[0]);
    // The same file again: the lines that differ, then a reference to the longest identical rest.
    expect(text(1)).toBe(`${own(1)}${duplicateRestMarker('c0')}`);
    // A different rest is kept whole; a rest too short for a reference too.
    expect(text(2)).toBe(outputs[2]);
    expect(text(4)).toBe(outputs[4]);
    // The same output whole: a reference in its place.
    expect(text(5)).toBe(duplicateMarker('c0'));
    expect(r.saved.duplicates).toBeGreaterThan(0);
  });

  it('drops reasoning of finished exchanges only when asked, never emptying a turn', () => {
    const thinking: Part = { type: 'thinking', text: 'x'.repeat(20_000), signature: 'sig', origin: 'messages' };
    const turns: Turn[] = [];
    for (let i = 0; i < 10; i++) {
      turns.push({ role: 'user', parts: [{ type: 'text', text: `question ${i}` }] });
      turns.push({ role: 'assistant', parts: i % 2 ? [thinking] : [thinking, { type: 'text', text: `answer ${i}` }] });
    }
    const conv: Conversation = { model: 'm', system: [], turns, tools: [], sampling: {}, stream: false, extras: {}, warnings: [] };
    expect(compressConversation(conv, opts).conversation).toBe(conv);
    const r = compressConversation(conv, { ...opts, dropOldReasoning: true });
    expect(r.saved.reasoning).toBeGreaterThan(0);
    for (const [i, t] of r.conversation.turns.entries()) {
      expect(t.parts.length).toBeGreaterThan(0);
      if (i >= r.frontier.index - 1) expect(t).toBe(turns[i]);
    }
  });

  describe('a step only where it pays for the cache write it causes', () => {
    /** A task, then tool rounds reading files of ~500 tokens; `reads[i]` names the file of round i. */
    function session(reads: number[], trailing = false): Conversation {
      const file = (k: number) => Array.from({ length: 50 }, (_, i) => `file ${k} line ${i}: ${'x'.repeat(30)}`).join('\n');
      const turns: Turn[] = [{ role: 'user', parts: [{ type: 'text', text: 'read the files' }] }];
      reads.forEach((k, i) => {
        turns.push({ role: 'assistant', parts: [{ type: 'tool_call', id: `c${i}`, name: 'Read', arguments: {}, argumentsText: '{}' }] });
        // Trailing spaces on the first read only: a few tokens the lossless steps would remove.
        const text = trailing && i === 0 ? file(k).replaceAll('\n', '  \n') : file(k);
        turns.push({ role: 'user', parts: [{ type: 'tool_result', callId: `c${i}`, content: [{ type: 'text', text }], isError: false }] });
      });
      return { model: 'm', system: [], turns, tools: [], sampling: {}, stream: false, extras: {}, warnings: [] };
    }
    const small = { ...DEFAULT_COMPRESS_OPTIONS, minTokens: 4000 };

    it('leaves a turn that would save fewer than minTurnSavingTokens as it was sent', () => {
      // Every file read twice, the first read with trailing spaces (about 25 tokens).
      const conv = session(Array.from({ length: 30 }, (_, i) => i >> 1), true);
      const r = compressConversation(conv, small);
      expect(r.frontier.level).toBeGreaterThanOrEqual(0);
      // The repeat of that file is a reference; the first read stays as sent, so the rewrite starts later.
      expect(r.conversation.turns[4]).not.toBe(conv.turns[4]);
      expect(r.conversation.turns[2]).toBe(conv.turns[2]);
      expect(r.saved.whitespace).toBe(0);
      // The same spaces are removed when no minimum is asked.
      const all = compressConversation(conv, { ...small, minTurnSavingTokens: 0 });
      expect(all.conversation.turns[2]).not.toBe(conv.turns[2]);
      expect(all.saved.whitespace).toBeGreaterThan(0);
    });

    it('does not rewrite a session whose only saving is too small for the rewrite, and does rewrite one where it pays', () => {
      // The first file read again once, early: about 500 tokens saved against a rewrite of most of the history.
      const once = session([0, 0, ...Array.from({ length: 28 }, (_, i) => i + 1)]);
      expect(compressConversation(once, small).conversation).toBe(once);
      // Every file read twice: half of the history is repeats, and the first step pays.
      const twice = session(Array.from({ length: 30 }, (_, i) => i >> 1));
      const r = compressConversation(twice, small);
      expect(r.frontier.level).toBeGreaterThanOrEqual(0);
      expect(r.saved.duplicates).toBeGreaterThan(0);
      expect(r.afterTokens).toBeLessThan(r.beforeTokens * 0.7);
    });
  });
});
