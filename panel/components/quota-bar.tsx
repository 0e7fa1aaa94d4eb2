/**
 * One quota window as a bar: the used fraction, a forecast marker of the fraction at reset (a forecast above 100 %
 * pins the marker to the end and says when the window runs out), and the reset time. No forecast yet says so.
 */
import type { QuotaWindow } from '../api/views.ts';
import { fmtPct } from './format.ts';
import { Time } from './time.tsx';

/** When the window reaches 100 % at the forecast pace, or null. */
export function runsOutAt(w: QuotaWindow, now = Date.now()): string | null {
  if (w.forecast_fraction === null || w.forecast_fraction <= 1 || w.used_fraction >= 1) return null;
  if (w.rate_per_hour && w.rate_per_hour > 0) return new Date(now + ((1 - w.used_fraction) / w.rate_per_hour) * 3_600_000).toISOString();
  if (!w.resets_at) return null;
  const left = Date.parse(w.resets_at) - now;
  return new Date(now + left * ((1 - w.used_fraction) / (w.forecast_fraction - w.used_fraction))).toISOString();
}

export function QuotaBar({ w }: { w: QuotaWindow }) {
  const used = Math.min(1, Math.max(0, w.used_fraction));
  const f = w.forecast_fraction;
  const out = runsOutAt(w);
  const forecastText = f === null ? 'no forecast yet' : `forecast ${fmtPct(f)} at reset`;
  return (
    <div class="quota">
      <div class="row">
        <strong>{w.name}</strong>
        <span>{fmtPct(w.used_fraction)} used</span>
        <span class="muted">{f === null ? 'No forecast yet (it needs a few readings).' : `Forecast at reset: ${fmtPct(f)}`}</span>
      </div>
      <div class="bar" role="img" aria-label={`${w.name}: ${fmtPct(w.used_fraction)} used, ${forecastText}`}>
        <div class="used" style={{ width: `${used * 100}%` }} />
        {f !== null && <div class="forecast" title={`Forecast at reset: ${fmtPct(f)}`} style={{ left: `calc(${Math.min(1, f) * 100}% - 2px)` }} />}
      </div>
      <p class="muted">
        {w.resets_at ? <>Resets <Time at={w.resets_at} /></> : 'Reset time unknown'}
        {out && <> · <strong class="field-error">At this pace it runs out <Time at={out} /></strong></>}
      </p>
    </div>
  );
}
