import { describe, expect, it } from 'vitest';
import { mapLimit } from './map-limit.ts';

describe('mapLimit', () => {
  it('keeps at most `limit` calls in flight and the results in order', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimit(Array.from({ length: 1000 }, (_, i) => i), 8, async (i) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return i * 2;
    });
    expect(most).toBe(8);
    expect(out).toEqual(Array.from({ length: 1000 }, (_, i) => i * 2));
  });

  it('handles an empty list', async () => {
    expect(await mapLimit([], 8, async () => 1)).toEqual([]);
  });
});
