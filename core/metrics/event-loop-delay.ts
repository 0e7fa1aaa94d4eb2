/**
 * The event-loop delay gauges (`nodejs_eventloop_lag_*`, the names prom-client gives them), sampled every
 * SAMPLE_MS instead of prom-client's 10 ms. Each sample is a timer, and on an idle node every timer is a wake-up of
 * its own: 100 a second cost an idle proxy node about 7 ms of CPU per second (docs/metrics.md), a cost every
 * node pays whether it serves anything or not. Ten a second still give a scrape every 15 s some 150 samples.
 *
 * A figure is how late the sampling timer fired: Node records the whole time between two samples, and so did
 * prom-client's figures (an idle node showed a delay of about 10 ms, its interval); here the interval is taken off.
 * A scrape reads the delays seen since the scrape before (Node times again from the first sample after the reset,
 * so the wait up to it is not counted, as with prom-client). One that comes sooner than a sample (two scrapers, or a
 * scrape right after another) finds none: it repeats the last figures instead of reporting NaN, which prom-client
 * renders as `Nan`, outside the text format.
 */
import { monitorEventLoopDelay, type Histogram } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

export const SAMPLE_MS = 100;

const NS = 1e9;

/** Which figure of the histogram each gauge shows; `late` when it is a time between samples (the interval is taken off). */
const FIGURES: readonly (readonly [string, string, (h: Histogram) => number, boolean])[] = [
  ['nodejs_eventloop_lag_min_seconds', 'The minimum recorded event loop delay.', (h) => h.min, true],
  ['nodejs_eventloop_lag_max_seconds', 'The maximum recorded event loop delay.', (h) => h.max, true],
  ['nodejs_eventloop_lag_mean_seconds', 'The mean of the recorded event loop delays.', (h) => h.mean, true],
  ['nodejs_eventloop_lag_stddev_seconds', 'The standard deviation of the recorded event loop delays.', (h) => h.stddev, false],
  ['nodejs_eventloop_lag_p50_seconds', 'The 50th percentile of the recorded event loop delays.', (h) => h.percentile(50), true],
  ['nodejs_eventloop_lag_p90_seconds', 'The 90th percentile of the recorded event loop delays.', (h) => h.percentile(90), true],
  ['nodejs_eventloop_lag_p99_seconds', 'The 99th percentile of the recorded event loop delays.', (h) => h.percentile(99), true],
];

/** Registers the gauges; returns what stops the sampling (tests). */
export function registerEventLoopDelay(registry: Registry, sampleMs = SAMPLE_MS): () => void {
  const histogram = monitorEventLoopDelay({ resolution: sampleMs });
  histogram.enable();
  const intervalNs = sampleMs * 1e6;
  // Registered first: the registry collects in order, and this collect sets the figures read after it.
  new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds: how late a callback queued at the scrape ran.',
    registers: [registry],
    // One collect sets every gauge of the family, as prom-client's own does.
    collect() {
      const start = process.hrtime.bigint();
      setImmediate(() => this.set(Number(process.hrtime.bigint() - start) / NS));
      if (histogram.count === 0) return;
      FIGURES.forEach(([, , figure, late], i) => gauges[i].set(Math.max(0, figure(histogram) - (late ? intervalNs : 0)) / NS));
      histogram.reset();
    },
  });
  const gauges = FIGURES.map(([name, help]) => new Gauge({ name, help, registers: [registry] }));
  return () => histogram.disable();
}
