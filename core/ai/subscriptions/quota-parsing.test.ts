import { describe, expect, it } from 'vitest';
import { forecastWindow } from './forecast.ts';
import { quotaResetFromHeaders, windowsFromHeaders } from './rate-limit-headers.ts';
import { parseUsageWindows } from './usage-windows.ts';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const HOUR = 3_600_000;

describe('usage endpoint windows', () => {
  it('reads utilization percent and reset, skips absent windows, names families', () => {
    const r = parseUsageWindows({
      five_hour: { utilization: 42.5, resets_at: '2026-01-15T15:00:00Z' },
      seven_day: { utilization: 7, resets_at: null },
      seven_day_opus: null,
      seven_day_sonnet: { utilization: 99, resets_at: '2026-01-20T00:00:00Z' },
      extra_usage: { is_enabled: false },
    }, { seven_day_sonnet: 'sonnet' });
    expect(r).toEqual({
      ok: true,
      windows: [
        { name: 'five_hour', family: null, used: 0.425, resetsAt: Date.UTC(2026, 0, 15, 15), windowSeconds: 18_000 },
        { name: 'seven_day', family: null, used: 0.07, resetsAt: null, windowSeconds: 604_800 },
        { name: 'seven_day_sonnet', family: 'sonnet', used: 0.99, resetsAt: Date.UTC(2026, 0, 20), windowSeconds: 604_800 },
      ],
    });
  });

  it.each([[null], ['text'], [[1, 2]], [{ message: 'hi' }], [{ five_hour: { utilization: 'lots' } }]])('reports an unexpected shape: %j', (body) => {
    expect(parseUsageWindows(body, {}).ok).toBe(false);
  });
});

describe('rate-limit headers', () => {
  it('reads the unified windows of a Claude plan', () => {
    const h = {
      'anthropic-ratelimit-unified-5h-utilization': '0.25', 'anthropic-ratelimit-unified-5h-reset': String(NOW / 1000 + 3600),
      'anthropic-ratelimit-unified-7d-utilization': '0.9', 'anthropic-ratelimit-unified-7d-status': 'rejected', 'anthropic-ratelimit-unified-7d-reset': String(NOW / 1000 + 86_400),
      'anthropic-ratelimit-unified-status': 'rejected', 'anthropic-ratelimit-unified-reset': String(NOW / 1000 + 86_400),
    };
    expect(windowsFromHeaders('anthropic', h, {}, NOW)).toEqual([
      { name: 'five_hour', family: null, used: 0.25, resetsAt: NOW + HOUR, windowSeconds: 18_000 },
      { name: 'seven_day', family: null, used: 1, resetsAt: NOW + 24 * HOUR, windowSeconds: 604_800 },
    ]);
    expect(quotaResetFromHeaders('anthropic', h, NOW)).toBe(NOW + 24 * HOUR);
    expect(windowsFromHeaders('anthropic', { 'anthropic-ratelimit-unified-status': 'rejected', 'anthropic-ratelimit-unified-reset': String(NOW / 1000 + 60) }, {}, NOW))
      .toEqual([{ name: 'unified', family: null, used: 1, resetsAt: NOW + 60_000, windowSeconds: null }]);
  });

  it('reads the Codex primary and secondary windows (reset-at or reset-after-seconds)', () => {
    const h = {
      'x-codex-primary-used-percent': '100', 'x-codex-primary-window-minutes': '300', 'x-codex-primary-reset-after-seconds': '600',
      'x-codex-secondary-used-percent': '12.5', 'x-codex-secondary-window-minutes': '10080', 'x-codex-secondary-reset-at': String(NOW / 1000 + 86_400),
    };
    expect(windowsFromHeaders('codex', h, {}, NOW)).toEqual([
      { name: 'primary', family: null, used: 1, resetsAt: NOW + 600_000, windowSeconds: 18_000 },
      { name: 'secondary', family: null, used: 0.125, resetsAt: NOW + 24 * HOUR, windowSeconds: 604_800 },
    ]);
    expect(quotaResetFromHeaders('codex', h, NOW)).toBe(NOW + 600_000);
    expect(windowsFromHeaders(null, h, {}, NOW)).toEqual([]);
    expect(windowsFromHeaders('codex', { 'x-codex-primary-used-percent': 'n/a' }, {}, NOW)).toEqual([]);
  });
});

describe('forecast', () => {
  const w = { name: 'five_hour', family: null, used: 0.5, resetsAt: NOW + 2 * HOUR, windowSeconds: 18_000 };

  it('extrapolates the rate since the oldest reading of the same period within 3 hours', () => {
    const f = forecastWindow(w, [{ used: 0.3, resetsAt: NOW + 2 * HOUR, at: NOW - 2 * HOUR }, { used: 0.45, resetsAt: NOW + 2 * HOUR, at: NOW - HOUR / 2 }], NOW);
    expect(f).toEqual({ ratePerHour: 0.1, atReset: 0.7 });
  });

  it('ignores readings of an earlier period and falls back to the window start', () => {
    const f = forecastWindow(w, [{ used: 0.9, resetsAt: NOW - HOUR, at: NOW - 90 * 60_000 }], NOW);
    // The window started 3 h ago (5 h long, resets in 2 h): 0.5 in 3 h.
    expect(f.ratePerHour).toBeCloseTo(0.5 / 3, 4);
    expect(f.atReset).toBeCloseTo(0.5 + (0.5 / 3) * 2, 4);
  });

  it('gives no forecast without readings or a known length', () => {
    expect(forecastWindow({ ...w, windowSeconds: null }, [], NOW)).toEqual({ ratePerHour: null, atReset: null });
  });
});
