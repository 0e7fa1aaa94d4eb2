/**
 * The span of oldest turns a summary may replace (issue 13 point 2, docs/compression.md "Summaries"), and the key
 * it is cached by. A summary is used at a growth step only (never a cache break of its own): at level L it replaces
 * the turns before the frontier of level L - 1, so it can be made after an answer of level L - 1 and be ready by the
 * step. The span ends before an assistant turn, so every tool result stays with its call (a call before the span's
 * end has its result before it too) and the summary, a user turn, is followed by an assistant turn.
 *
 * The key is a hash of exactly the turns replaced, without cache markers (clients move their breakpoints from turn
 * to turn; the turns' content is what a summary stands for).
 */
import { createHash } from 'node:crypto';
import type { Turn } from '../translators/model.ts';
import { tokensOfChars } from './compress-options.ts';
import { turnChars } from './turn-size.ts';

export interface SummarySpan {
  /** Turns [0, end) are replaced. */
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

/** The span that ends at the last assistant turn at or before `limit` (undefined: none, or below minTokens). */
export function summarySpanAt(turns: readonly Turn[], limit: number, minTokens: number): SummarySpan | undefined {
  let end = Math.min(limit, turns.length - 1);
  while (end > 0 && !(turns[end].role === 'assistant' && turns[end - 1].role !== 'assistant')) end--;
  if (end <= 0) return undefined;
  let chars = 0;
  for (let i = 0; i < end; i++) chars += turnChars(turns[i]);
  const tokens = tokensOfChars(chars);
  if (tokens < minTokens) return undefined;
  return { end, hash: spanHash(turns.slice(0, end)), tokens };
}

export function summaryMarker(turns: number): string {
  return `[svc: a summary of the first ${turns} turns of this conversation, which it replaces]`;
}

/** The user turn that stands for a span. */
export function summaryTurn(span: SummarySpan, text: string): Turn {
  return { role: 'user', parts: [{ type: 'text', text: `${summaryMarker(span.end)}\n\n${text}` }] };
}
