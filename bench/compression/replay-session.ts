/**
 * Replays a session turn by turn as an agent sends it (one request each time the model is to speak, the whole
 * history each time) with and without the compressor, and prices each request with a provider's prompt cache (issue
 * 13 targets): the longest run of leading turns identical to the previous request is read from the cache, the rest is written
 * (or sent fresh). System prompt and tools are constant and cached after the first request.
 */
import type { Conversation, Turn } from '../../translators/model.ts';
import { compressConversation } from '../../compressor/compress-conversation.ts';
import { tokensOfChars, type CompressOptions } from '../../compressor/compress-options.ts';
import { turnChars } from '../../compressor/turn-size.ts';
import { summaryToMake } from '../../compressor/summary-span.ts';
import { summaryCost, type Frontier } from '../../compressor/frontier.ts';
import { SUMMARY_MAX_TOKENS } from '../../proxy/compression/summary-prompt.ts';

/** Prices relative to a fresh input token. */
export interface CachePrices {
  name: string;
  read: number;
  write: number;
}

/** messages style: explicit breakpoints, 5-minute writes at 1.25×, reads at 0.1×. */
export const MESSAGES_CACHE: CachePrices = { name: 'messages (write 1.25×, read 0.1×)', read: 0.1, write: 1.25 };
/** chat-completions and generative-language styles: automatic caching, no write surcharge, reads at 0.1×. */
export const AUTOMATIC_CACHE: CachePrices = { name: 'automatic (read 0.1×)', read: 0.1, write: 1 };

export interface ReplayTotals {
  requests: number;
  /** Input tokens of the last request (the session's size as sent). */
  lastTokens: number;
  /** Input tokens summed over every request. */
  inputTokens: number;
  /** Effective input cost in fresh-token units, per price table. */
  cost: number[];
  /** Requests whose history did not start with the previous request's history. */
  cacheBreaks: number;
  /** Compressor time per request, ms per 100 k tokens of the request. */
  msPer100k: number[];
  /** Summary calls made, and their cost in the main model's fresh-input-token units (included in `cost`). */
  summaryCalls: number;
  summaryCost: number;
}

/**
 * Summaries of the oldest turns as the gateway makes them (docs/compression.md "Summaries"): after each request the
 * span the next step replaces is summarised once, when the gateway's rule says its call pays (summaryToMake, with the
 * gateway's bound on a summary's size), ready by that step. A summary call is paid fresh (no cache): its input
 * counted as the span's tokens (the transcript the gateway sends is at most that) plus the earlier summaries it gets
 * as context, its output as `outputTokens`, at the summary model's prices relative to the main model's input price.
 */
export interface SummaryModel {
  minTokens: number;
  outputTokens: number;
  input: number;
  output: number;
}

function sameTurn(a: Turn, b: Turn): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

export function replaySession(conv: Conversation, options: CompressOptions | undefined, prices: CachePrices[], summary?: SummaryModel): ReplayTotals {
  const fixed = tokensOfChars(JSON.stringify(conv.system).length + JSON.stringify(conv.tools).length);
  const totals: ReplayTotals = { requests: 0, lastTokens: 0, inputTokens: 0, cost: prices.map(() => 0), cacheBreaks: 0, msPer100k: [], summaryCalls: 0, summaryCost: 0 };
  const made = new Map<string, string>();
  const summaries = summary && { lookup: (hash: string) => made.get(hash), minTokens: summary.minTokens };
  let frontier: Frontier | undefined;
  let beforeTokens = 0;
  let prev: Turn[] = [];
  for (let n = 1; n <= conv.turns.length; n++) {
    // A request goes up when the model is to speak next: after the user's turns or the tools' results, whichever
    // come last (an agent may send several user turns at once, and the results of parallel calls come back together).
    if (conv.turns[n - 1].role === 'assistant' || (n < conv.turns.length && conv.turns[n].role !== 'assistant')) continue;
    let turns = conv.turns.slice(0, n);
    if (options) {
      const t0 = performance.now();
      const r = compressConversation({ ...conv, turns }, options, summaries);
      totals.msPer100k.push(((performance.now() - t0) * 100_000) / Math.max(1, r.beforeTokens));
      turns = r.conversation.turns;
      frontier = r.frontier;
      beforeTokens = r.beforeTokens;
    }
    const sizes = turns.map((t) => tokensOfChars(turnChars(t)));
    const size = fixed + sizes.reduce((a, b) => a + b, 0);
    let common = 0;
    while (common < prev.length && common < turns.length && sameTurn(prev[common], turns[common])) common++;
    if (totals.requests > 0 && common < prev.length) totals.cacheBreaks++;
    const read = totals.requests === 0 ? 0 : fixed + sizes.slice(0, common).reduce((a, b) => a + b, 0);
    prices.forEach((p, i) => (totals.cost[i] += read * p.read + (size - read) * p.write));
    totals.inputTokens += size;
    totals.lastTokens = size;
    totals.requests++;
    prev = turns;
    if (summary && options && frontier) summarise(conv.turns.slice(0, n), frontier, beforeTokens, options.growth, summary, made, totals);
  }
  return totals;
}

/**
 * After the answer: the span the next step replaces (the chain's next link), summarised once when its call pays (a
 * placeholder of the summary's size), with the summaries before it in the summary call's input.
 */
function summarise(turns: Turn[], frontier: Frontier, tokens: number, growth: number, summary: SummaryModel, made: Map<string, string>, totals: ReplayTotals): void {
  const lookup = (hash: string) => made.get(hash);
  const prices = { input: summary.input, output: summary.output, summaryTokens: SUMMARY_MAX_TOKENS };
  const next = summaryToMake(turns, frontier, tokens, growth, { lookup, minTokens: summary.minTokens }, prices);
  if (next === undefined || made.has(next.span.hash)) return;
  made.set(next.span.hash, 'summary '.repeat(Math.ceil(summary.outputTokens / 2)));
  // Its input: the span, and the summaries before it as context.
  const context = tokensOfChars(next.earlier.reduce((n, t) => n + t.length, 0));
  const cost = summaryCost({ spanTokens: next.span.tokens, contextTokens: context, summaryTokens: summary.outputTokens, input: summary.input, output: summary.output });
  totals.summaryCalls++;
  totals.summaryCost += cost;
  totals.cost = totals.cost.map((c) => c + cost);
}
