import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterFamily, HistogramFamily } from './metric-families.ts';

describe('metric families', () => {
  it('render through a prom-client registry in the text format, histograms cumulative', async () => {
    const registry = new Registry();
    const calls = new CounterFamily('t_calls_total', 'Calls.', ['model', 'outcome']);
    const time = new HistogramFamily('t_seconds', 'Time.', ['model'], [0.1, 1]);
    registry.registerMetric(calls as never);
    registry.registerMetric(time as never);
    const ok = calls.cell('a "b"', 'ok');
    ok.value += 2;
    expect(calls.cell('a "b"', 'ok')).toBe(ok);
    const h = time.cell('a');
    for (const v of [0.05, 0.1, 0.5, 3]) h.observe(v);
    expect(await registry.metrics()).toBe(
      [
        '# HELP t_calls_total Calls.',
        '# TYPE t_calls_total counter',
        't_calls_total{model="a \\"b\\"",outcome="ok"} 2',
        '',
        '# HELP t_seconds Time.',
        '# TYPE t_seconds histogram',
        't_seconds_bucket{model="a",le="0.1"} 2',
        't_seconds_bucket{model="a",le="1"} 3',
        't_seconds_bucket{model="a",le="+Inf"} 4',
        't_seconds_sum{model="a"} 3.65',
        't_seconds_count{model="a"} 4',
        '',
      ].join('\n'),
    );
  });
});
