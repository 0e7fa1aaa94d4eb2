import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPRESS_OPTIONS } from './compress-options.ts';
import { frontierOf } from './frontier.ts';

const opts = { ...DEFAULT_COMPRESS_OPTIONS, minTokens: 100, keepLastTurns: 2, lossyAtTokens: 200 };
/** n turns of 40 characters (10 estimated tokens) each. */
const turns = (n: number) => Array(n).fill(40);

describe('frontierOf', () => {
  it('rewrites nothing below minTokens', () => {
    expect(frontierOf(turns(9), opts)).toEqual({ level: -1, index: 0, lossy: false });
  });

  it('places the frontier at the size of the level below', () => {
    // 10 turns = 100 tokens: level 0, frontier at 100 / 1.25 = 80 tokens = 8 turns.
    expect(frontierOf(turns(10), opts)).toEqual({ level: 0, index: 8, lossy: false });
    // 13 turns = 130 tokens: level 1 (125 ≤ 130 < 156.25), frontier at 125 / 1.25 = 100 tokens = 10 turns.
    expect(frontierOf(turns(13), opts)).toEqual({ level: 1, index: 10, lossy: false });
  });

  it('turns the lossy steps on with the level, not with the exact size', () => {
    const levels = Array.from({ length: 40 }, (_, n) => frontierOf(turns(n + 1), opts));
    for (const f of levels) expect(f.lossy).toBe(f.level >= 0 && 100 * 1.25 ** f.level >= 200);
  });

  it('never reaches into the last turns', () => {
    const big = [...turns(3), 4000, 40];
    const f = frontierOf(big, opts);
    expect(f.index).toBeLessThanOrEqual(big.length - opts.keepLastTurns);
  });

  it('moves only when the conversation grew by a quarter', () => {
    let last = frontierOf(turns(1), opts);
    let sizeAtMove = 0;
    for (let n = 2; n <= 400; n++) {
      const f = frontierOf(turns(n), opts);
      if (f.index !== last.index) {
        expect(f.index).toBeGreaterThan(last.index);
        if (sizeAtMove > 0) expect(n * 10).toBeGreaterThanOrEqual(sizeAtMove * 1.25 - 10);
        sizeAtMove = n * 10;
      }
      last = f;
    }
  });
});
