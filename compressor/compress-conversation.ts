/**
 * The conversation compressor (issue 13 point 2): a pure function over the internal model, deterministic and
 * prefix-stable. It rewrites only the turns before the frontier (frontier.ts) and each of those turns only from
 * itself and the turns before it, so the compressed history of a later turn starts with the compressed history of
 * an earlier one for as long as the growth level does not change.
 *
 * Steps, per tool output of an old turn: the lossless ones (tidy-output.ts: terminal codes, repeated lines,
 * whitespace and JSON), then a reference to an identical earlier output instead of a second copy (or to its
 * identical rest, after a few first lines of the tool's own that differ), then, past the
 * lossy threshold, the head-and-tail cut of a huge output (cut-output.ts). Reasoning of earlier exchanges is dropped
 * only when the caller says the upstream ignores it (`dropOldReasoning`). With summaries (summary-span.ts), from the
 * second step on each span of the chain up to the step before is replaced by its summary when the caller has one
 * ready for exactly those turns; the turns a summary replaces are not seen by the later ones (no reference points
 * into a summary).
 *
 * Never touched: the system prompt, the tool definitions, the turns after the frontier (the last turns always),
 * user and assistant text, tool calls, images, documents, and the pairing of calls with results (no part is removed
 * but reasoning, and a tool result keeps its call id). Cache markers stay on the block they were on.
 */
import type { Conversation, Part, TextPart, ToolResultPart, Turn } from '../translators/model.ts';
import { tokensOfChars, type CompressOptions } from './compress-options.ts';
import { cutOutput } from './cut-output.ts';
import { frontierOf, type Frontier } from './frontier.ts';
import { lastStepSpan, summarySpans, summaryTurns, type SummaryOptions, type SummarySpan } from './summary-span.ts';
import { tidyOutput } from './tidy-output.ts';
import { turnChars } from './turn-size.ts';

/** Estimated tokens removed by each step. */
export interface StepSavings {
  ansi: number;
  whitespace: number;
  duplicates: number;
  cut: number;
  reasoning: number;
  /** Turns replaced by a summary, minus the summary. */
  summary: number;
}

export interface CompressResult {
  /** The compressed conversation; the same object when nothing changed. */
  conversation: Conversation;
  frontier: Frontier;
  /** Estimated tokens of the turns, before and after (system prompt and tools are never changed). */
  beforeTokens: number;
  afterTokens: number;
  saved: StepSavings;
  /** The newest span a summary would replace at this step (asked for whether or not one was ready), and whether it did. */
  summary?: SummarySpan & { used: boolean };
}

export function duplicateMarker(callId: string): string {
  return `[svc: identical to the output of tool call ${callId} earlier in this conversation; omitted]`;
}

export function duplicateRestMarker(callId: string): string {
  return `[svc: the rest is identical to the output of tool call ${callId} earlier in this conversation; omitted]`;
}

/**
 * A tool may put a few lines of its own before an output (Codex CLI: a chunk id, the wall time, the exit code), so
 * the same file read twice differs in them. An output is also matched with its first lines set aside, up to this
 * many lines and characters; those lines are kept, and only the identical rest becomes a reference.
 */
const HEADER_LINES = 6;
const HEADER_CHARS = 300;

/** An earlier output's text from `at` on, first seen in the result of call `callId`. */
interface Rest {
  callId: string;
  text: string;
  at: number;
}

/**
 * A cheap key for a rest: its length and its last characters (hashing every rest whole cost about 60 % more
 * compressor time); a match is then checked character by character.
 */
const restKey = (text: string, at: number) => `${text.length - at}:${text.slice(Math.max(at, text.length - 128))}`;

function findRest(seen: Map<string, Rest[]>, text: string, at: number): Rest | undefined {
  return seen.get(restKey(text, at))?.find((r) => text.length - at === r.text.length - r.at && text.endsWith(r.text.slice(r.at)));
}

/** Where the text after each of the first lines starts (0 first), within the header bounds. */
function headerCuts(text: string): number[] {
  const cuts = [0];
  let at = 0;
  while (cuts.length <= HEADER_LINES) {
    const nl = text.indexOf('\n', at);
    if (nl < 0 || nl + 1 > HEADER_CHARS) break;
    at = nl + 1;
    cuts.push(at);
  }
  return cuts;
}

interface Pass {
  opts: CompressOptions;
  lossy: boolean;
  /** Earlier outputs (tidied) and their rests after each of their first lines, by restKey. */
  seen: Map<string, Rest[]>;
  chars: { ansi: number; whitespace: number; duplicates: number; cut: number; reasoning: number };
}

/** The outputs of a result when it holds text only (results with media are left alone). */
function textOnly(r: ToolResultPart): TextPart[] | undefined {
  return r.content.every((c) => c.type === 'text') ? (r.content as TextPart[]) : undefined;
}

function compressResult(r: ToolResultPart, pass: Pass): ToolResultPart {
  const texts = textOnly(r);
  if (texts === undefined || texts.length === 0) return r;
  const joined = texts.map((t) => t.text).join('\n');
  const tidy = tidyOutput(joined);
  pass.chars.ansi += tidy.ansi;
  pass.chars.whitespace += tidy.whitespace;
  let text = tidy.text;
  const worth = (c: number) => tokensOfChars(text.length - c) >= pass.opts.dedupeMinTokens;
  const cuts = headerCuts(text);
  // The longest rest seen before (the whole output first); a rest too short to be worth a reference is not matched.
  let cut: number | undefined;
  let earlier: Rest | undefined;
  for (const c of cuts) {
    earlier = worth(c) ? findRest(pass.seen, text, c) : undefined;
    if (earlier !== undefined) {
      cut = c;
      break;
    }
  }
  if (cut !== undefined && earlier !== undefined) {
    const first = earlier.callId;
    const shorter = cut === 0 ? duplicateMarker(first) : `${text.slice(0, cut)}${duplicateRestMarker(first)}`;
    if (shorter.length < text.length) {
      pass.chars.duplicates += text.length - shorter.length;
      text = shorter;
    }
  } else {
    for (const at of cuts) {
      if (!worth(at)) continue;
      const key = restKey(text, at);
      const rests = pass.seen.get(key);
      if (rests === undefined) pass.seen.set(key, [{ callId: r.callId, text, at }]);
      else rests.push({ callId: r.callId, text, at });
    }
    if (pass.lossy) {
      const cutText = cutOutput(text, pass.opts);
      pass.chars.cut += text.length - cutText.length;
      text = cutText;
    }
  }
  if (text === joined) return r;
  // One text block in place of the originals, carrying the cache marker of the last one (the breakpoint's place).
  const cache = texts[texts.length - 1].cache;
  const part: TextPart = cache ? { type: 'text', text, cache } : { type: 'text', text };
  return { ...r, content: [part] };
}

/** An assistant turn's parts without reasoning, when it keeps something else (a turn is never emptied). */
function withoutReasoning(parts: Part[], pass: Pass): Part[] {
  const kept = parts.filter((p) => p.type !== 'thinking' && p.type !== 'redacted_thinking');
  if (kept.length === parts.length || kept.length === 0) return parts;
  for (const p of parts) if (p.type === 'thinking' || p.type === 'redacted_thinking') pass.chars.reasoning += p.type === 'thinking' ? p.text.length : p.data.length;
  return kept;
}

/** The last user turn before `end` that the user wrote (not only tool results): exchanges before it are over. */
function lastExchangeStart(turns: readonly Turn[], end: number): number {
  for (let i = end - 1; i >= 0; i--) {
    const t = turns[i];
    if (t.role === 'user' && t.parts.some((p) => p.type !== 'tool_result')) return i;
  }
  return 0;
}

function compressTurn(turn: Turn, pass: Pass, reasoningDroppable: boolean): Turn {
  let parts = turn.parts;
  if (reasoningDroppable && turn.role === 'assistant') parts = withoutReasoning(parts, pass);
  let changed = parts !== turn.parts;
  const out = parts.map((p) => {
    if (p.type !== 'tool_result') return p;
    const r = compressResult(p, pass);
    if (r !== p) changed = true;
    return r;
  });
  return changed ? { ...turn, parts: out } : turn;
}

const NO_SAVINGS: StepSavings = Object.freeze({ ansi: 0, whitespace: 0, duplicates: 0, cut: 0, reasoning: 0, summary: 0 });

export function compressConversation(conv: Conversation, opts: CompressOptions, summaries?: SummaryOptions): CompressResult {
  const sizes = conv.turns.map(turnChars);
  const beforeChars = sizes.reduce((a, b) => a + b, 0);
  const frontier = frontierOf(sizes, opts);
  const pass: Pass = { opts, lossy: frontier.lossy, seen: new Map(), chars: { ansi: 0, whitespace: 0, duplicates: 0, cut: 0, reasoning: 0 } };
  const beforeTokens = tokensOfChars(beforeChars);
  if (frontier.index === 0) return { conversation: conv, frontier, beforeTokens, afterTokens: beforeTokens, saved: { ...NO_SAVINGS } };
  // Summaries only from the second step on, of the spans of the chain up to the step before this one.
  const limits = frontier.steps.slice(0, -1);
  const chain = summaries && frontier.level >= 1 ? summarySpans(conv.turns, limits, summaries.minTokens, summaries.lookup) : [];
  const spans = chain.filter((span) => span.text !== undefined);
  // Reasoning is dropped only from exchanges that ended before the frontier (never inside a tool loop still open).
  const reasoningEnd = opts.dropOldReasoning ? lastExchangeStart(conv.turns, frontier.index) : 0;
  let changed = false;
  let replacedChars = 0;
  const turns: Turn[] = [];
  let next = 0;
  for (let i = 0; i < conv.turns.length; i++) {
    while (next < spans.length && spans[next].end <= i) next++;
    const span = spans[next];
    if (span?.text !== undefined && i === span.start) {
      const replacement = summaryTurns(span, span.text, turns.at(-1)?.role === 'user');
      turns.push(...replacement);
      replacedChars += sizes.slice(span.start, span.end).reduce((a, b) => a + b, 0) - replacement.reduce((n, t) => n + turnChars(t), 0);
      changed = true;
      i = span.end - 1;
      continue;
    }
    const t = conv.turns[i];
    if (i >= frontier.index) {
      turns.push(t);
      continue;
    }
    const c = compressTurn(t, pass, i < reasoningEnd);
    if (c !== t) changed = true;
    turns.push(c);
  }
  const c = pass.chars;
  const saved: StepSavings = {
    ansi: tokensOfChars(c.ansi), whitespace: tokensOfChars(c.whitespace), duplicates: tokensOfChars(c.duplicates),
    cut: tokensOfChars(c.cut), reasoning: tokensOfChars(c.reasoning), summary: tokensOfChars(Math.max(0, replacedChars)),
  };
  const newest = lastStepSpan(conv.turns, chain, limits);
  const summary = newest ? { start: newest.start, end: newest.end, hash: newest.hash, tokens: newest.tokens, used: newest.text !== undefined } : undefined;
  if (!changed) return { conversation: conv, frontier, beforeTokens, afterTokens: beforeTokens, saved, summary };
  const afterChars = turns.reduce((n, t) => n + turnChars(t), 0);
  return { conversation: { ...conv, turns }, frontier, beforeTokens, afterTokens: tokensOfChars(afterChars), saved, summary };
}
