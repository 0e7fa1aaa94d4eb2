import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPRESS_OPTIONS } from './compress-options.ts';
import { frontierOf } from './frontier.ts';

const opts = { ...DEFAULT_COMPRESS_OPTIONS, minTokens: 100, keepLastTurns: 2, lossyAtTokens: 200 };
/** n turns of 40 characters (10 estimated tokens) each. */
const turns = (n: number) => Array(n).fill(40);

describe('frontierOf', () => {
  it('rewrites nothing below minTokens', () => {
    expect(frontierOf(turns(9), opts)).toEqual({ level: -1, index: 0, previous: 0, lossy: false, steps: [] });
  });

  it('takes the first step at minTokens, short of the last turns', () => {
    // 10 turns = 100 tokens: the first step, frontier at 10 - 2.
    expect(frontierOf(turns(10), opts)).toEqual({ level: 0, index: 8, previous: 0, lossy: false, steps: [8] });
    expect(frontierOf(turns(12), opts)).toEqual({ level: 0, index: 8, previous: 0, lossy: false, steps: [8] });
    // 13 turns = 130 tokens ≥ 100 × 1.25: the second step, frontier at 13 - 2.
    expect(frontierOf(turns(13), opts)).toEqual({ level: 1, index: 11, previous: 8, lossy: false, steps: [8, 11] });
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
