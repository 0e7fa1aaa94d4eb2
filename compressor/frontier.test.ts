import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPRESS_OPTIONS } from './compress-options.ts';
import { frontierOf, requestsToNextStep, stepCost, stepPays, summaryCost, summaryPays, type SummaryFacts } from './frontier.ts';

const opts = { ...DEFAULT_COMPRESS_OPTIONS, minTokens: 100, keepLastTurns: 2, lossyAtTokens: 200 };
/** n turns of 40 characters (10 estimated tokens) each. */
const turns = (n: number) => Array(n).fill(40);

describe('frontierOf', () => {
  it('rewrites nothing below minTokens', () => {
    expect(frontierOf(turns(9), opts)).toEqual({ level: -1, index: 0, previous: 0, lossy: false, steps: [], requests: 1, stepRequests: 0, stepTokens: 0, stepRewritten: 0 });
  });

  it('takes the first step at minTokens, short of the last turns', () => {
    // 10 turns = 100 tokens: the first step, frontier at 10 - 2; without what each turn saves, every turn from the
    // old frontier on counts as rewritten: all 10.
    expect(frontierOf(turns(10), opts)).toEqual({ level: 0, index: 8, previous: 0, lossy: false, steps: [8], requests: 1, stepRequests: 1, stepTokens: 100, stepRewritten: 100 });
    expect(frontierOf(turns(12), opts)).toEqual({ level: 0, index: 8, previous: 0, lossy: false, steps: [8], requests: 1, stepRequests: 1, stepTokens: 100, stepRewritten: 100 });
    // 13 turns = 130 tokens ≥ 100 × 1.25: the second step, frontier at 13 - 2; it rewrites turns 8 to 12.
    expect(frontierOf(turns(13), opts)).toEqual({ level: 1, index: 11, previous: 8, lossy: false, steps: [8, 11], requests: 1, stepRequests: 1, stepTokens: 130, stepRewritten: 50 });
  });

  it('turns the lossy steps on at a step past lossyAtTokens, not in between', () => {
    let prev = frontierOf(turns(1), opts);
    for (let n = 2; n <= 60; n++) {
      const f = frontierOf(turns(n), opts);
      if (f.lossy !== prev.lossy) expect(f.level).toBe(prev.level + 1);
      prev = f;
    }
    expect(prev.lossy).toBe(true);
  });

  it('never reaches into the last turns', () => {
    for (const sizes of [[...turns(3), 4000, 40], [4000], [40, 4000, 40, 40]]) {
      expect(frontierOf(sizes, opts).index).toBeLessThanOrEqual(Math.max(0, sizes.length - opts.keepLastTurns));
    }
  });

  it('moves only when the conversation grew by a quarter since the last move', () => {
    let last = frontierOf(turns(1), opts);
    let sizeAtMove = 0;
    for (let n = 2; n <= 400; n++) {
      const f = frontierOf(turns(n), opts);
      if (f.index !== last.index) {
        expect(f.index).toBeGreaterThan(last.index);
        expect(f.level).toBe(last.level + 1);
        if (sizeAtMove > 0) expect(n * 10).toBeGreaterThanOrEqual(sizeAtMove * 1.25);
        sizeAtMove = n * 10;
      }
      last = f;
    }
  });
});

describe('a step pays for its cache write', () => {
  const gainsOf = (n: number, saved: Record<number, number>) => ({
    lossless: Array.from({ length: n }, (_, i) => saved[i] ?? 0),
    cut: Array(n).fill(0),
    // Tool rounds: the model speaks in every odd turn.
    model: Array.from({ length: n }, (_, i) => i % 2 === 1),
  });
  const late = { ...opts, minTokens: 300, lossyAtTokens: 1e9 };

  it('is not taken for a small saving early in the history: it would rewrite everything after it', () => {
    // 4 tokens saved in the first turn: the step at 300 tokens would write 300 tokens to the cache again.
    expect(frontierOf(turns(60), late, gainsOf(60, { 0: 16 })).level).toBe(-1);
    // Without what the turns save, every growth step is taken.
    expect(frontierOf(turns(60), late).level).toBeGreaterThan(0);
  });

  it('is taken when its saving, read by three times the requests so far, pays for its rewrite', () => {
    // Turn 27 saves 8 tokens; the step at turn 30 rewrites turns 27-29 (30 tokens) after 16 requests:
    // 0.1 × 8 × 3 × 16 = 38.4 ≥ 1.15 × 30 - 1.25 × 8 = 24.5.
    // Its cache break, as the savings report prices it: the history already sent (before the model's last turn, 29)
    // from turn 27, the first that changes, as compressed: 2 tokens of turn 27 and 10 of turn 28.
    expect(frontierOf(turns(30), late, gainsOf(30, { 27: 32 }))).toMatchObject({ level: 0, index: 28, stepRewritten: 12 });
    expect(frontierOf(turns(33), late, gainsOf(33, { 27: 32 }))).toMatchObject({ level: 0, index: 28, stepRewritten: 12 });
    // 4 tokens: 19.2 < 29.5, and no later turn of this conversation makes it pay.
    expect(frontierOf(turns(60), late, gainsOf(60, { 27: 16 })).level).toBe(-1);
  });

  it('is not taken when it removes nothing, and a later one may be covered by what was saved before', () => {
    expect(stepPays({ requests: 100, saved: 0, rewritten: 0, banked: 1e9 })).toBe(false);
    // Costs 1.15 × 1000 - 1.25 × 100 = 1025; pays 0.1 × 100 × 3 × 2 = 60 by itself.
    expect(stepCost({ saved: 100, rewritten: 1000 })).toBeCloseTo(1025);
    expect(stepPays({ requests: 2, saved: 100, rewritten: 1000, banked: 0 })).toBe(false);
    expect(stepPays({ requests: 2, saved: 100, rewritten: 1000, banked: 1025 })).toBe(true);
    expect(stepPays({ requests: 35, saved: 100, rewritten: 1000, banked: 0 })).toBe(true);
  });
});

describe('a summary pays for its call', () => {
  // The last step at 10 000 tokens and request 10; the next at 12 500. A span of 8000 tokens, a summary of 1000,
  // gpt-4o-mini against a $3 model: the call costs 8000 × 0.05 + 1000 × 0.2 = 600.
  const facts = (over: Partial<SummaryFacts> & { requests?: number; stepRequests?: number }): SummaryFacts => ({
    frontier: { level: 0, requests: over.requests ?? 12, stepRequests: over.stepRequests ?? 10, stepTokens: 10_000 },
    tokens: 11_000, growth: 1.25, spanTokens: 8_000, contextTokens: 0, summaryTokens: 1_000, input: 0.05, output: 0.2, ...over,
  });

  it('is made when the next step is near and its saving, read after that step, pays for the call', () => {
    expect(summaryCost(facts({}))).toBeCloseTo(600);
    // 500 tokens a request since the step: 1500 to go, 3 requests (≤ 12 / 3); 0.1 × 7000 × (36 - 3) ≥ 600.
    expect(requestsToNextStep(facts({}))).toBeCloseTo(3);
    expect(summaryPays(facts({}))).toBe(true);
    // A step already due (it did not pay yet): the summary is ready when it does.
    expect(requestsToNextStep(facts({ tokens: 13_000 }))).toBe(0);
    expect(summaryPays(facts({ tokens: 13_000 }))).toBe(true);
  });

  it('is not made while the next step is far or its pace unknown: the call is lost if the conversation ends first', () => {
    // 100 tokens a request: 23 requests to go, more than a third of the 12 so far (the session lasts that long less
    // than three times in four).
    expect(summaryPays(facts({ tokens: 10_200 }))).toBe(false);
    // No request since the step: no pace yet.
    expect(summaryPays(facts({ requests: 10 }))).toBe(false);
    expect(summaryPays(facts({ frontier: { level: -1, requests: 12, stepRequests: 0, stepTokens: 0 } }))).toBe(false);
  });

  it('is not made when its call costs more than it saves, or it would not shorten the span', () => {
    // A span of 3000 tokens by a model as dear as the conversation's (input 1×, output 8×): 3000 + 8000 = 11 000
    // > 0.1 × 2000 × 33 = 6600.
    expect(summaryPays(facts({ spanTokens: 3_000, input: 1, output: 8 }))).toBe(false);
    // With 40 requests so far the same call pays: 0.1 × 2000 × (3 × 40 - 3) = 23 400.
    expect(summaryPays(facts({ spanTokens: 3_000, input: 1, output: 8, requests: 40, stepRequests: 38 }))).toBe(true);
    expect(summaryPays(facts({ spanTokens: 1_000 }))).toBe(false);
  });
});
