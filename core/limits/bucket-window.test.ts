import { describe, expect, it } from 'vitest';
import { BucketWindow } from './bucket-window.ts';
import { DAY_WINDOW, MINUTE_WINDOW } from './limit-store.ts';

describe('BucketWindow', () => {
  it('counts a call until the bucket after its last one begins (59 to 60 s in the minute)', () => {
    const w = new BucketWindow(MINUTE_WINDOW);
    const t0 = 1_000_000_000_000; // a bucket boundary
    w.add(t0 + 999); // the end of its bucket
    w.add(t0); // the start of the same bucket
    expect(w.count(t0 + 59_999)).toBe(2);
    expect(w.retryAfterMs(t0 + 59_999)).toBe(1);
    expect(w.count(t0 + 60_000)).toBe(0);
  });

  it('says when the oldest counted call leaves, never more than a window away', () => {
    const w = new BucketWindow(MINUTE_WINDOW);
    const t0 = 1_000_000_000_000;
    w.add(t0 + 10_500);
    w.add(t0 + 30_000);
    expect(w.retryAfterMs(t0 + 30_000)).toBe(70_000 - 30_000);
    expect(w.count(t0 + 70_000)).toBe(1);
    expect(w.retryAfterMs(t0 + 70_000)).toBe(20_000);
    expect(w.retryAfterMs(t0 + 100_000)).toBe(60_000);
  });

  it('subtracts the buckets that leave one by one, and forgets everything after an idle window', () => {
    const w = new BucketWindow(DAY_WINDOW);
    const t0 = 1_000_000_020_000;
    for (let i = 0; i < 10; i++) w.add(t0 + i * 3_600_000); // one call an hour
    expect(w.count(t0 + 9 * 3_600_000)).toBe(10);
    expect(w.count(t0 + 24 * 3_600_000)).toBe(9);
    expect(w.count(t0 + 33 * 3_600_000)).toBe(0);
    w.add(t0 + 100 * 3_600_000);
    expect(w.count(t0 + 100 * 3_600_000)).toBe(1);
  });

  it('keeps counting through a clock that steps back, in the newest bucket seen', () => {
    const w = new BucketWindow(MINUTE_WINDOW);
    const t0 = 1_000_000_000_000;
    w.add(t0 + 30_000);
    w.add(t0 + 5_000); // the clock stepped back 25 s
    expect(w.count(t0 + 5_000)).toBe(2);
    expect(w.count(t0 + 89_999)).toBe(2);
    expect(w.count(t0 + 90_000)).toBe(0);
  });
});
