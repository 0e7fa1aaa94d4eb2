/**
 * The one chart wrapper: a uPlot time series (canvas, fast for 100k points). Colours come from the theme's custom
 * properties; the chart follows its container's width. Times on the axis and in the legend are the viewer's zone.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** Formats a value with its unit, for the legend and the axis. */
  format: (v: number) => string;
  /** Colour as a CSS custom property name, e.g. --bar. */
  color?: string;
  bars?: boolean;
  /** Whole numbers only (calls, events): the axis never ticks at fractions. */
  integer?: boolean;
}

const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 1e7, 1e8, 1e9];

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

export function TimeChart({ times, series, label, height = 240 }: { times: number[]; series: ChartSeries[]; label: string; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const half = times.length > 1 ? (times[1] - times[0]) / 2 : 1800;
    const text = cssVar('--text');
    const grid = cssVar('--border');
    const axis = (fmt: (v: number) => string, whole: boolean): uPlot.Axis => ({
      stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 80,
      values: (_u, vals) => vals.map((v) => (v == null ? '' : fmt(v))),
      ...(whole ? { incrs: WHOLE_STEPS } : {}),
    });
    const opts: uPlot.Options = {
      width: Math.max(300, el.clientWidth),
      height,
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: cssVar(s.color ?? '--bar'),
          fill: s.bars ? `${cssVar(s.color ?? '--bar')}55` : undefined,
          width: 2,
          paths: s.bars ? uPlot.paths.bars?.({ size: [0.7, 40] }) : undefined,
          value: (_u: uPlot, v: number | null) => (v == null ? '—' : s.format(v)),
          points: { show: times.length < 60 },
        })),
      ],
      axes: [{ stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } }, axis(series[0]?.format ?? String, !!series[0]?.integer)],
      scales: {
        // Half a step of room on each side, so the first and last bars are drawn whole.
        x: { time: true, range: (_u, min, max) => [min - half, max + half] },
        y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
      },
      legend: { live: true },
    };
    const plot = new uPlot(opts, [times, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(300, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, height]);
  return <div ref={box} class="chart" role="img" aria-label={label} />;
}
