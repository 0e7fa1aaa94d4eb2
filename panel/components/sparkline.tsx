/**
 * A sparkline: a row's small trend (an issue's events per hour) drawn as one SVG path. Deliberately not uPlot:
 * a page of 100 issues would create 100 chart instances and canvases for a shape with no axes, no cursor and no
 * legend. The numbers are in the accessible name, the shape is for the eye.
 */
interface Props {
  values: readonly number[];
  /** What the values are, for the accessible name, e.g. "Events per hour, last 24 hours". */
  label: string;
  width?: number;
  height?: number;
}

export function Sparkline({ values, label, width = 96, height = 24 }: Props) {
  const max = Math.max(1, ...values);
  const total = values.reduce((a, b) => a + b, 0);
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const y = (v: number) => (height - 1 - (v / max) * (height - 2)).toFixed(1);
  const line = values.map((v, i) => `${i === 0 ? 'M' : 'L'}${(i * step).toFixed(1)},${y(v)}`).join('');
  return (
    <svg class="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${total} in all, at most ${Math.max(0, ...values)} in an hour`}>
      {values.length > 0 && <path class="sparkline-area" d={`${line}L${((values.length - 1) * step).toFixed(1)},${height}L0,${height}Z`} />}
      {values.length > 0 && <path class="sparkline-line" d={line} />}
    </svg>
  );
}
