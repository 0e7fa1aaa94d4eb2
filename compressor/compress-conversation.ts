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
 * Every turn a step may reach is compressed once per call, before the frontier is placed, since a step is taken only
 * where what it removes pays for the cache write it causes (frontier.ts); a turn that would lose fewer than
 * `minTurnSavingTokens` stays as it was sent, so that a few spaces never start a rewrite.
 *
 * Never touched: the system prompt, the tool definitions, the turns after the frontier (the last turns always),
 * user and assistant text, tool calls, images, documents, and the pairing of calls with results (no part is removed
 * but reasoning, and a tool result keeps its call id). Cache markers stay on the block they were on.
 */
import type { Conversation, Part, TextPart, ToolResultPart, Turn } from '../translators/model.ts';
import { CHARS_PER_TOKEN, tokensOfChars, type CompressOptions } from './compress-options.ts';
import { cutOutput } from './cut-output.ts';
import { frontierOf, type Frontier, type TurnGains } from './frontier.ts';
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
  /** Earlier outputs (tidied) and their rests after each of their first lines, by restKey. */
  seen: Map<string, Rest[]>;
}

/** Characters removed from one tool result by each step (`cut` only in its lossy form). */
interface ResultChars {
  ansi: number;
  whitespace: number;
  duplicates: number;
  cut: number;
}

/** A tool result as it goes before the frontier: without the lossy cut and with it (the same part when nothing is cut). */
interface CompressedResult {
  lossless: ToolResultPart;
  lossy: ToolResultPart;
  chars: ResultChars;
}

/** The outputs of a result when it holds text only (results with media are left alone). */
function textOnly(r: ToolResultPart): TextPart[] | undefined {
  return r.content.every((c) => c.type === 'text') ? (r.content as TextPart[]) : undefined;
}

/** One text block in place of the originals, carrying the cache marker of the last one (the breakpoint's place). */
function withText(r: ToolResultPart, texts: TextPart[], joined: string, text: string): ToolResultPart {
  if (text === joined) return r;
  const cache = texts[texts.length - 1].cache;
  const part: TextPart = cache ? { type: 'text', text, cache } : { type: 'text', text };
  return { ...r, content: [part] };
}

function compressResult(r: ToolResultPart, pass: Pass): CompressedResult {
  const chars: ResultChars = { ansi: 0, whitespace: 0, duplicates: 0, cut: 0 };
  const texts = textOnly(r);
  if (texts === undefined || texts.length === 0) return { lossless: r, lossy: r, chars };
  const joined = texts.map((t) => t.text).join('\n');
  const tidy = tidyOutput(joined);
  chars.ansi = tidy.ansi;
  chars.whitespace = tidy.whitespace;
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
      chars.duplicates = text.length - shorter.length;
      text = shorter;
    }
    const lossless = withText(r, texts, joined, text);
    return { lossless, lossy: lossless, chars };
  }
  for (const at of cuts) {
    if (!worth(at)) continue;
    const key = restKey(text, at);
    const rests = pass.seen.get(key);
    if (rests === undefined) pass.seen.set(key, [{ callId: r.callId, text, at }]);
    else rests.push({ callId: r.callId, text, at });
  }
  const lossless = withText(r, texts, joined, text);
  const cutText = cutOutput(text, pass.opts);
  chars.cut = text.length - cutText.length;
  return { lossless, lossy: chars.cut > 0 ? withText(r, texts, joined, cutText) : lossless, chars };
}

/** An assistant turn's parts without reasoning, when it keeps something else (a turn is never emptied); the characters dropped. */
function withoutReasoning(parts: Part[]): [Part[], number] {
  const kept = parts.filter((p) => p.type !== 'thinking' && p.type !== 'redacted_thinking');
  if (kept.length === parts.length || kept.length === 0) return [parts, 0];
  let chars = 0;
  for (const p of parts) if (p.type === 'thinking' || p.type === 'redacted_thinking') chars += p.type === 'thinking' ? p.text.length : p.data.length;
  return [kept, chars];
}

/** The last user turn before `end` that the user wrote (not only tool results): exchanges before it are over. */
function lastExchangeStart(turns: readonly Turn[], end: number): number {
  for (let i = end - 1; i >= 0; i--) {
    const t = turns[i];
    if (t.role === 'user' && t.parts.some((p) => p.type !== 'tool_result')) return i;
  }
  return 0;
}

/** A turn as it goes before the frontier, without the lossy cut and with it, and what each step removes from it (in the lossy form). */
interface OldTurn {
  lossless: Turn;
  lossy: Turn;
  chars: ResultChars;
}

function compressOldTurn(turn: Turn, pass: Pass): OldTurn {
  const chars: ResultChars = { ansi: 0, whitespace: 0, duplicates: 0, cut: 0 };
  let lossless = false;
  let lossy = false;
  const results = turn.parts.map((p) => {
    if (p.type !== 'tool_result') return undefined;
    const r = compressResult(p, pass);
    chars.ansi += r.chars.ansi;
    chars.whitespace += r.chars.whitespace;
    chars.duplicates += r.chars.duplicates;
    chars.cut += r.chars.cut;
    if (r.lossless !== p) lossless = true;
    if (r.lossy !== p) lossy = true;
    return r;
  });
  const form = (changed: boolean, pick: (r: CompressedResult) => ToolResultPart): Turn =>
    changed ? { ...turn, parts: turn.parts.map((p, i) => (results[i] ? pick(results[i]) : p)) } : turn;
  // A turn that would save less than `minTurnSavingTokens` stays as it was sent: a rewritten turn breaks the cache
  // from there on, and a few trailing spaces are not worth a step's rewrite starting there. Each form is judged by
  // what it saves: the lossless steps alone, or with the cut.
  const min = pass.opts.minTurnSavingTokens * CHARS_PER_TOKEN;
  const kept = chars.ansi + chars.whitespace + chars.duplicates;
  const losslessTurn = kept >= min ? form(lossless, (r) => r.lossless) : turn;
  const lossyTurn = kept + chars.cut < min ? turn : chars.cut > 0 ? form(lossy, (r) => r.lossy) : losslessTurn;
  return { lossless: losslessTurn, lossy: lossyTurn, chars };
}

const newPass = (opts: CompressOptions): Pass => ({ opts, seen: new Map() });

const NO_SAVINGS: StepSavings = Object.freeze({ ansi: 0, whitespace: 0, duplicates: 0, cut: 0, reasoning: 0, summary: 0 });

export function compressConversation(conv: Conversation, opts: CompressOptions, summaries?: SummaryOptions): CompressResult {
  const sizes = conv.turns.map(turnChars);
  const beforeChars = sizes.reduce((a, b) => a + b, 0);
  const beforeTokens = tokensOfChars(beforeChars);
  // Every turn a step may reach is compressed once, before the frontier is placed: what each would save decides
  // whether a step pays for the cache write it causes (frontier.ts). A turn depends only on the turns before it, so
  // the same forms serve the output.
  const reach = Math.max(0, conv.turns.length - opts.keepLastTurns);
  const pass = newPass(opts);
  const old: OldTurn[] = [];
  if (tokensOfChars(beforeChars) >= opts.minTokens) for (let i = 0; i < reach; i++) old.push(compressOldTurn(conv.turns[i], pass));
  const losslessChars = (o: OldTurn, t: Turn) => (o.lossless === t ? 0 : o.chars.ansi + o.chars.whitespace + o.chars.duplicates);
  // Reasoning counts as removable wherever there is some (whether its exchange is over depends on later turns, and
  // a step must depend on the turns before it only).
  const reasoning = (t: Turn) => (opts.dropOldReasoning && t.role === 'assistant' ? withoutReasoning(t.parts)[1] : 0);
  const gains: TurnGains = {
    lossless: old.map((o, i) => losslessChars(o, conv.turns[i]) + reasoning(conv.turns[i])),
    cut: old.map((o, i) => (o.lossy === conv.turns[i] ? 0 : o.chars.ansi + o.chars.whitespace + o.chars.duplicates + o.chars.cut) - losslessChars(o, conv.turns[i])),
    model: conv.turns.map((t) => t.role === 'assistant'),
  };
  const frontier = frontierOf(sizes, opts, gains);
  if (frontier.index === 0) return { conversation: conv, frontier, beforeTokens, afterTokens: beforeTokens, saved: { ...NO_SAVINGS } };
  // Summaries only from the second step on, of the spans of the chain up to the step before this one.
  const limits = frontier.steps.slice(0, -1);
  const chain = summaries && frontier.level >= 1 ? summarySpans(conv.turns, limits, summaries.minTokens, summaries.lookup) : [];
  const spans = chain.filter((span) => span.text !== undefined);
  // The turns a summary replaces are not seen by the later ones (no reference points into a summary): those are
  // compressed again without them.
  const again = spans.length > 0 ? newPass(opts) : undefined;
  // Reasoning is dropped only from exchanges that ended before the frontier (never inside a tool loop still open).
  const reasoningEnd = opts.dropOldReasoning ? lastExchangeStart(conv.turns, frontier.index) : 0;
  const c = { ansi: 0, whitespace: 0, duplicates: 0, cut: 0, reasoning: 0 };
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
    const o = again ? compressOldTurn(t, again) : old[i];
    let out = frontier.lossy ? o.lossy : o.lossless;
    if (out !== t) {
      c.ansi += o.chars.ansi;
      c.whitespace += o.chars.whitespace;
      c.duplicates += o.chars.duplicates;
      if (frontier.lossy) c.cut += o.chars.cut;
    }
    if (i < reasoningEnd && out.role === 'assistant') {
      const [parts, dropped] = withoutReasoning(out.parts);
      if (dropped > 0) {
        out = { ...out, parts };
        c.reasoning += dropped;
      }
    }
    if (out !== t) changed = true;
    turns.push(out);
  }
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
