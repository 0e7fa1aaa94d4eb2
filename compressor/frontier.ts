/**
 * Where the compressor may rewrite a conversation: the turns before the frontier. This is what makes compression
 * prefix-stable (issue 13 point 2), so that the provider's prompt cache keeps hitting.
 *
 * The frontier moves in steps, each fixed by the turns that existed when it was taken. Walking the turns in order,
 * a step may be taken at the first turn e where the conversation reaches `minTokens`; each later step at the first
 * turn e where the conversation has grown by `growth` (1.25: 25 %) since the last step. A step moves the frontier to
 * e - keepLastTurns, so the last turns are never rewritten, and everything older is compressed.
 *
 * A step is taken only when it pays for the cache write it causes (`stepPays`): every turn from its first rewritten
 * one to the end is written to the provider's cache again instead of being read from it. A step that would not pay
 * is tried again at the next turn, with what the conversation holds by then.
 *
 * A step depends only on the turns before it, so every later request of the same conversation finds the same
 * steps: its compressed history starts with the previous request's, and the cached prefix breaks only at a step,
 * once per 25 % of growth at most, from the old frontier on (the old frontier's prefix is unchanged).
 *
 * The lossy steps apply to every turn before the frontier once a step was taken at a size past `lossyAtTokens`;
 * that step rewrites from the start, once in a conversation.
 */
import { tokensOfChars, type CompressOptions } from './compress-options.ts';

export interface Frontier {
  /** Steps taken, minus one: -1 when nothing is rewritten; a change of level is a rewrite of what was sent. */
  level: number;
  /** Turns [0, index) may be rewritten. */
  index: number;
  /** The frontier of the step before this one (0 at the first step): where a summary of the oldest turns may end. */
  previous: number;
  /** The lossy steps apply. */
  lossy: boolean;
  /** The frontier of each step, in order (the last is `index`): where the chain of summary spans ends. */
  steps: readonly number[];
  /** Requests sent so far, this one included (one per turn of the model, and this one; 1 without `gains`). */
  requests: number;
  /** The requests sent when the last step was taken (0 before the first), and the conversation's estimated tokens then. */
  stepRequests: number;
  stepTokens: number;
  /**
   * Estimated tokens that the last step made the provider write to its cache again instead of reading them: the
   * history already sent (up to the model's last turn) from the step's first rewritten turn on, as compressed (0
   * before the first step). What its cache break costs; the savings report prices it.
   */
  stepRewritten: number;
}

/** What compressing each turn would remove (characters), for the turns a step may reach. */
export interface TurnGains {
  /** By the lossless steps. */
  lossless: readonly number[];
  /** By the lossy cut, besides. */
  cut: readonly number[];
  /** The turn is the model's: it answered one request. */
  model: readonly boolean[];
}

/** A step that may be taken (estimated tokens). */
export interface StepFacts {
  /** Requests sent so far, this one included. */
  requests: number;
  /** Tokens the step removes. */
  saved: number;
  /** Tokens from its first rewritten turn to the end: written to the cache again. */
  rewritten: number;
  /** What compression saved in this conversation so far, in fresh-token units: the reads it spared, less what the steps cost. */
  banked: number;
}

/**
 * Cache prices relative to a fresh input token, the dearer of the providers' (messages style: writes 1.25×, reads
 * 0.1×; automatic caching writes at 1×): the compressor does not know the upstream's, and a step judged at these
 * pays under both.
 */
const CACHE_WRITE = 1.25;
const CACHE_READ = 0.1;
/**
 * The requests still to come, guessed as this many times the requests sent so far. A session that has gone on for N
 * requests goes on for N more about as often as not, and for 3 N more one time in four (the chance to last k times
 * as long again is 1 / (k + 1) when nothing else is known of its length); a step whose saving needs longer is a bet.
 */
const REQUESTS_TO_COME = 3;

/** What a step costs on the request that takes it: its rewrite written instead of read, less what it removes. */
export function stepCost(f: Pick<StepFacts, 'saved' | 'rewritten'>): number {
  return (CACHE_WRITE - CACHE_READ) * f.rewritten - CACHE_WRITE * f.saved;
}

/**
 * A step is taken when it removes something and either its saving, read from the cache by the requests to come,
 * pays for its cost, or what compression has already saved in this conversation covers that cost (the conversation
 * is then not dearer than uncompressed even if it ends with this request).
 */
export function stepPays(f: StepFacts): boolean {
  if (f.saved <= 0) return false;
  const cost = stepCost(f);
  return CACHE_READ * f.saved * REQUESTS_TO_COME * f.requests >= cost || f.banked >= cost;
}

/**
 * A summary call that may be made after this request's answer, for the span the next step will replace (estimated
 * tokens; prices relative to a fresh input token of the conversation's model).
 */
export interface SummaryFacts {
  /** The conversation's frontier after this request (its requests, and the size and requests at its last step). */
  frontier: Pick<Frontier, 'level' | 'requests' | 'stepRequests' | 'stepTokens'>;
  /** The conversation's tokens now, and the growth factor of a step (CompressOptions.growth). */
  tokens: number;
  growth: number;
  /** Tokens of the turns the summary replaces. */
  spanTokens: number;
  /** Tokens of the earlier summaries the call gets as context. */
  contextTokens: number;
  /** Tokens the summary is expected to have at most. */
  summaryTokens: number;
  /** The summary model's input and output prices. */
  input: number;
  output: number;
}

/** What the summary call costs, paid fresh (no cache): the span and the earlier summaries in, the summary out. */
export function summaryCost(f: Pick<SummaryFacts, 'spanTokens' | 'contextTokens' | 'summaryTokens' | 'input' | 'output'>): number {
  return (f.spanTokens + f.contextTokens) * f.input + f.summaryTokens * f.output;
}

/**
 * The requests until the next step, at the pace the conversation has grown since the last one (0 when it is due;
 * undefined when no request came since the last step, or it did not grow: no pace yet).
 */
export function requestsToNextStep(f: Pick<SummaryFacts, 'frontier' | 'tokens' | 'growth'>): number | undefined {
  const { requests, stepRequests, stepTokens, level } = f.frontier;
  if (level < 0) return undefined;
  const left = stepTokens * f.growth - f.tokens;
  if (left <= 0) return 0;
  const since = requests - stepRequests;
  const pace = since > 0 ? (f.tokens - stepTokens) / since : 0;
  return pace > 0 ? left / pace : undefined;
}

/**
 * A summary is made only when it pays for its own call (docs/compression.md "Summaries of old turns"). It is used
 * from the next step on, so its call is lost if the conversation ends first; and it saves nothing until then. It is
 * made when both hold:
 * - the next step is near: at the pace since the last step, it comes within a third of the requests so far, so that
 *   the conversation lasts until then three times in four at least (the chance to last k × N more requests is
 *   1 / (k + 1), as for REQUESTS_TO_COME);
 * - what it removes, read from the cache by the requests to come after that step (REQUESTS_TO_COME × the requests
 *   so far, less those until the step), pays for its call.
 */
export function summaryPays(f: SummaryFacts): boolean {
  const saved = f.spanTokens - f.summaryTokens;
  const until = requestsToNextStep(f);
  if (saved <= 0 || until === undefined || until * REQUESTS_TO_COME > f.frontier.requests) return false;
  return CACHE_READ * saved * (REQUESTS_TO_COME * f.frontier.requests - until) >= summaryCost(f);
}

const NONE: Frontier = Object.freeze({ level: -1, index: 0, previous: 0, lossy: false, steps: Object.freeze([]), requests: 1, stepRequests: 0, stepTokens: 0, stepRewritten: 0 });

/**
 * The frontier for a conversation whose turns have these sizes (characters), and what compressing them would remove.
 * Without `gains`, every growth step is taken (where steps may fall, whatever they save).
 */
export function frontierOf(turnChars: readonly number[], opts: CompressOptions, gains?: TurnGains): Frontier {
  if (opts.growth <= 1) return NONE;
  let chars = 0;
  let index = 0;
  let previous = 0;
  let level = -1;
  let stepTokens = 0;
  let stepRequests = 0;
  let stepRewritten = 0;
  let lossy = false;
  let requests = 1;
  /** Where the history sent before the model's last turn ends (its turns are new in the next request). */
  let sentEnd = 0;
  let saved = 0;
  let banked = 0;
  const steps: number[] = [];
  const starts = [0];
  for (let e = 1; e <= turnChars.length; e++) {
    chars += turnChars[e - 1];
    starts.push(chars);
    // A turn of the model answered a request, which read what the steps so far had removed from the cache.
    if (gains?.model[e - 1]) {
      requests++;
      banked += CACHE_READ * saved;
      sentEnd = e - 1;
    }
    const total = tokensOfChars(chars);
    if (total < opts.minTokens) continue;
    if (level >= 0 && total < stepTokens * opts.growth) continue;
    const next = e - opts.keepLastTurns;
    if (next <= index) continue;
    const nowLossy = total >= opts.lossyAtTokens;
    // Without `gains` every turn from the old frontier on counts as rewritten, as it was sent.
    let rewritten = tokensOfChars(chars - starts[index]);
    if (gains) {
      const step = stepAt(gains, lossy ? index : 0, index, next, nowLossy);
      const facts: StepFacts = { requests, saved: tokensOfChars(step.chars), rewritten: tokensOfChars(chars - starts[step.first]), banked };
      if (!stepPays(facts)) continue;
      saved += facts.saved;
      banked -= stepCost(facts);
      rewritten = tokensOfChars(Math.max(0, starts[Math.max(sentEnd, step.first)] - starts[step.first] - step.chars));
    }
    previous = index;
    index = next;
    steps.push(index);
    level++;
    stepTokens = total;
    stepRequests = requests;
    stepRewritten = rewritten;
    lossy = nowLossy;
  }
  return level < 0 ? { ...NONE, requests } : { level, index, previous, lossy: stepTokens >= opts.lossyAtTokens, steps, requests, stepRequests, stepTokens, stepRewritten };
}

/**
 * What a step moving the frontier from `index` to `next` removes (characters), and its first rewritten turn: the
 * turns from `index` on, and the lossy cut of the turns before it when this step turns the cut on (from `cutFrom`,
 * which is `index` once the cut is on).
 */
function stepAt(gains: TurnGains, cutFrom: number, index: number, next: number, lossy: boolean): { chars: number; first: number } {
  let chars = 0;
  let first = next;
  for (let i = lossy ? cutFrom : index; i < next; i++) {
    const g = (i >= index ? (gains.lossless[i] ?? 0) : 0) + (lossy ? (gains.cut[i] ?? 0) : 0);
    if (g > 0 && first === next) first = i;
    chars += g;
  }
  return { chars, first };
}
