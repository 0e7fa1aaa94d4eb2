import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, retryDelayMs } from './retry-schedule.ts';

describe('retryDelayMs', () => {
  it('backs off exponentially from 10 s, with jitter of ±20 %', () => {
    expect(retryDelayMs(1, MAX_ATTEMPTS, () => 0.5)).toBe(10_000);
    expect(retryDelayMs(1, MAX_ATTEMPTS, () => 0)).toBe(8_000);
    expect(retryDelayMs(2, MAX_ATTEMPTS, () => 0.999999)).toBeCloseTo(36_000, -1);
    expect(retryDelayMs(3, MAX_ATTEMPTS, () => 0.5)).toBe(120_000);
    expect(retryDelayMs(5, MAX_ATTEMPTS, () => 0.5)).toBe(3_600_000);
    const delays = RETRY_DELAYS_MS.map((_, i) => retryDelayMs(i + 1, MAX_ATTEMPTS, () => 0.5) as number);
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
  });

  it('stops after the last attempt', () => {
    expect(retryDelayMs(MAX_ATTEMPTS)).toBeNull();
    expect(retryDelayMs(MAX_ATTEMPTS - 1)).not.toBeNull();
    expect(retryDelayMs(3, 3)).toBeNull();
  });
});
