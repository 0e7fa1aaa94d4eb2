/**
 * The spans of old turns summaries may replace (issue 13 point 2, docs/compression.md "Summaries"), and the key each
 * is cached by. A summary is used at a growth step only (never a cache break of its own). The spans form a chain:
 * the span of step L ends at the frontier of step L and starts where the span before it ended, so each turn is
 * summarised once, and a step that uses a new summary rewrites the history from that span's start, not from the
 * first turn (the summaries before it stay as they were sent, in the provider's cache). At level L the spans of
 * steps 0 … L - 1 are used, so each can be made after an answer of the step it belongs to and be ready by the next.
 * A span ends before an assistant turn, so every tool result stays with its call (a call before the span's end has
 * its result before it too), and the summary, a user turn, is followed by an assistant turn.
 *
 * The key is a hash of exactly the turns replaced, without cache markers (clients move their breakpoints from turn
 * to turn; the turns' content is what a summary stands for).
 */
import { createHash } from 'node:crypto';
import type { Turn } from '../translators/model.ts';
import { tokensOfChars } from './compress-options.ts';
import { summaryPays, type Frontier } from './frontier.ts';
import { turnChars } from './turn-size.ts';

export interface SummarySpan {
  /** Turns [start, end) are replaced. */
  start: number;
  end: number;
  hash: string;
  /** Estimated tokens of the turns replaced. */
  tokens: number;
}

/** What a summary may be asked: the summary text of a span (by hash) when one is ready, else undefined. */
export type SummaryLookup = (hash: string) => string | undefined;

export interface SummaryOptions {
  lookup: SummaryLookup;
  /** Spans smaller than this are never summarised. */
  minTokens: number;
}

const dropCache = (key: string, value: unknown) => (key === 'cache' ? undefined : value);

export function spanHash(turns: readonly Turn[]): string {
  return createHash('sha256').update(JSON.stringify(turns, dropCache)).digest('base64url');
}

/** The last span boundary (a turn index before an assistant turn that follows another role) at or before `limit`. */
export function boundaryAt(turns: readonly Turn[], limit: number): number {
  let end = Math.min(limit, turns.length - 1);
  while (end > 0 && !(turns[end].role === 'assistant' && turns[end - 1].role !== 'assistant')) end--;
  return end;
}

/** A span of the chain, with its summary when one was ready. */
export interface ChainSpan extends SummarySpan {
  text: string | undefined;
}

/**
 * The chain of spans for these step frontiers (in order): each ends at the last boundary at or before its frontier
 * and starts where the last summarised span before it ended. A span under minTokens is left out, and a span
 * without a summary (none ready when its step was first served, or a failed one) is listed but not summarised: its
 * turns join the next span, so that a later summary still covers them.
 */
export function summarySpans(turns: readonly Turn[], limits: readonly number[], minTokens: number, lookup: SummaryLookup): ChainSpan[] {
  const spans: ChainSpan[] = [];
  let start = 0;
  let chars = 0;
  let counted = 0;
  for (const limit of limits) {
    const end = boundaryAt(turns, limit);
    if (end <= start) continue;
    for (; counted < end; counted++) chars += turnChars(turns[counted]);
    const tokens = tokensOfChars(chars);
    if (tokens < minTokens) continue;
    const hash = spanHash(turns.slice(start, end));
    const text = lookup(hash);
    spans.push({ start, end, hash, tokens, text });
    if (text === undefined) continue;
    start = end;
    chars = 0;
  }
  return spans;
}

/**
 * The span a summary is made for after an answer: the one the next step will use, from the end of the last
 * summarised span of `chain` (the chain up to the step before, as the request used it) to the last boundary at or
 * before `limit` (the current frontier). Undefined when it is empty or under minTokens. Its own summary is not looked
 * up (a lookup decides, on a node, whether a span is used).
 */
export function nextSpan(turns: readonly Turn[], chain: readonly ChainSpan[], limit: number, minTokens: number): SummarySpan | undefined {
  const start = chain.filter((s) => s.text !== undefined).at(-1)?.end ?? 0;
  const end = boundaryAt(turns, limit);
  if (end <= start) return undefined;
  let chars = 0;
  for (let i = start; i < end; i++) chars += turnChars(turns[i]);
  const tokens = tokensOfChars(chars);
  return tokens < minTokens ? undefined : { start, end, hash: spanHash(turns.slice(start, end)), tokens };
}

/** The summary model's prices relative to a fresh input token of the conversation's model, and the summary's size. */
export interface SummaryCallPrices {
  input: number;
  output: number;
  /** Tokens a summary may have (what the call allows): the call's output, and what stays of the span. */
  summaryTokens: number;
}

/** A summary to make after an answer: its span, and the earlier summaries (oldest first) its call gets as context. */
export interface SummaryToMake {
  span: SummarySpan;
  earlier: string[];
}

/**
 * After an answer, what the gateway asks to summarise (and what the bench's replay models): the span the next step
 * will replace (nextSpan, after the chain as this request used it), when it pays for its call (frontier.ts
 * `summaryPays`); else undefined. `frontier` and `tokens` are the request's (CompressResult.frontier, beforeTokens),
 * `growth` the options' step factor.
 */
export function summaryToMake(
  turns: readonly Turn[], frontier: Frontier, tokens: number, growth: number, opts: SummaryOptions, prices: SummaryCallPrices,
): SummaryToMake | undefined {
  const steps = frontier.steps;
  if (steps.length === 0) return undefined;
  const chain = summarySpans(turns, steps.slice(0, -1), opts.minTokens, opts.lookup);
  const span = nextSpan(turns, chain, steps[steps.length - 1], opts.minTokens);
  if (span === undefined) return undefined;
  const earlier = chain.flatMap((s) => (s.text !== undefined && s.end <= span.start ? [s.text] : []));
  const contextTokens = tokensOfChars(earlier.reduce((n, t) => n + t.length, 0));
  const pays = summaryPays({ frontier, tokens, growth, spanTokens: span.tokens, contextTokens, ...prices });
  return pays ? { span, earlier } : undefined;
}

/** The last span of the chain when it ends at the last of `limits` (the span of that step), else undefined. */
export function lastStepSpan(turns: readonly Turn[], spans: readonly ChainSpan[], limits: readonly number[]): ChainSpan | undefined {
  const last = spans.at(-1);
  return last !== undefined && limits.length > 0 && last.end === boundaryAt(turns, limits[limits.length - 1]) ? last : undefined;
}

export function summaryMarker(span: Pick<SummarySpan, 'start' | 'end'>): string {
  const which = span.start === 0 ? `the first ${span.end} turns` : `turns ${span.start + 1} to ${span.end}`;
  return `[svc: a summary of ${which} of this conversation, which it replaces]`;
}

/**
 * The turns that stand for a span: the summary as a user turn, after an assistant turn that introduces it when the
 * turn before is a user turn too (a span after the first starts with an assistant turn), so roles still alternate.
 */
export function summaryTurns(span: SummarySpan, text: string, afterUserTurn: boolean): Turn[] {
  const summary: Turn = { role: 'user', parts: [{ type: 'text', text: `${summaryMarker(span)}\n\n${text}` }] };
  if (!afterUserTurn) return [summary];
  return [{ role: 'assistant', parts: [{ type: 'text', text: `[svc: turns ${span.start + 1} to ${span.end} of this conversation are summarised in the next turn]` }] }, summary];
}
