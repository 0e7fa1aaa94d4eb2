/**
 * prom-client's default process metrics (CPU, memory, open files, handles, heap, GC, version), each registered by
 * prom-client's own module, except its event-loop delay, which event-loop-delay.ts replaces under the same names
 * (prom-client samples it every 10 ms, a wake-up an idle node pays 100 times a second).
 */
import { createRequire } from 'node:module';
import { collectDefaultMetrics, type Registry } from 'prom-client';
import { registerEventLoopDelay } from './event-loop-delay.ts';

type DefaultMetric = (registry: Registry, config: object) => void;

const load = createRequire(import.meta.url);
const REPLACED = 'eventLoopLag';

export function registerProcessMetrics(registry: Registry): void {
  const names = (collectDefaultMetrics as unknown as { metricsList: readonly string[] }).metricsList;
  for (const name of names) {
    if (name === REPLACED) continue;
    (load(`prom-client/lib/metrics/${name}.js`) as DefaultMetric)(registry, {});
  }
  registerEventLoopDelay(registry);
}
