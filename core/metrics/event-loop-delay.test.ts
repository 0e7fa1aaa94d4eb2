import { describe, expect, it } from 'vitest';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { registerEventLoopDelay } from './event-loop-delay.ts';
import { registerProcessMetrics } from './process-metrics.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `name value` pairs of a rendered registry (no labels on these families). */
async function values(registry: Registry, prefix: string): Promise<Map<string, string>> {
  const text = await registry.metrics();
  return new Map(text.split('\n').filter((l) => l.startsWith(prefix)).map((l) => l.split(' ') as [string, string]));
}

describe('event-loop delay', () => {
  it('reports how late the samples came since the last scrape, in seconds', async () => {
    const registry = new Registry();
    const stop = registerEventLoopDelay(registry, 20);
    try {
      await sleep(120);
      const v = await values(registry, 'nodejs_eventloop_lag_');
      expect([...v.keys()].sort()).toEqual([
        'nodejs_eventloop_lag_max_seconds', 'nodejs_eventloop_lag_mean_seconds', 'nodejs_eventloop_lag_min_seconds',
        'nodejs_eventloop_lag_p50_seconds', 'nodejs_eventloop_lag_p90_seconds', 'nodejs_eventloop_lag_p99_seconds',
        'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_stddev_seconds',
      ]);
      const mean = Number(v.get('nodejs_eventloop_lag_mean_seconds'));
      // How late a 20 ms timer fired on a loop that waits for nothing: well under its interval, never the interval
      // itself (Node records the whole time between samples) nor minutes (an empty histogram's extremes).
      expect(mean).toBeGreaterThanOrEqual(0);
      expect(mean).toBeLessThan(0.015);
      expect(Number(v.get('nodejs_eventloop_lag_min_seconds'))).toBeLessThanOrEqual(Number(v.get('nodejs_eventloop_lag_max_seconds')));
    } finally {
      stop();
    }
  });

  it('shows a blocked loop as the time it was blocked', async () => {
    const registry = new Registry();
    const stop = registerEventLoopDelay(registry, 20);
    try {
      await sleep(50);
      await values(registry, 'nodejs_eventloop_lag_');
      // Node starts timing again at the first sample after a reset: the block comes after one.
      await sleep(50);
      const until = performance.now() + 80;
      while (performance.now() < until) { /* the loop is blocked */ }
      await sleep(50);
      const max = Number((await values(registry, 'nodejs_eventloop_lag_')).get('nodejs_eventloop_lag_max_seconds'));
      expect(max).toBeGreaterThan(0.05);
      expect(max).toBeLessThan(0.5);
    } finally {
      stop();
    }
  });

  it('repeats the last figures, never NaN, when a scrape comes before the next sample', async () => {
    const registry = new Registry();
    const stop = registerEventLoopDelay(registry, 50);
    try {
      await sleep(200);
      const first = await values(registry, 'nodejs_eventloop_lag_');
      const second = await values(registry, 'nodejs_eventloop_lag_');
      for (const [name, value] of second) {
        expect(Number.isFinite(Number(value)), `${name} ${value}`).toBe(true);
        if (name !== 'nodejs_eventloop_lag_seconds') expect(value).toBe(first.get(name));
      }
    } finally {
      stop();
    }
  });
});

describe('process metrics', () => {
  it('are the names of prom-client\'s defaults, the event-loop delay included', async () => {
    const ours = new Registry();
    registerProcessMetrics(ours);
    const theirs = new Registry();
    collectDefaultMetrics({ register: theirs });
    const names = (r: Registry) => r.getMetricsAsArray().map((m) => m.name).sort();
    expect(names(ours)).toEqual(names(theirs));
  });
});
