/**
 * Usage analytics over GET /api/v1/usage: a time series by hour or day of the chosen measure, and a table grouped by
 * model, key, account or team (calls, tokens in/out/cache, cost, error rate, p50/p95 latency) over the last N days.
 * The choices live in the URL, so a link shows the same view.
 */
import { useMemo } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { Metrics, Usage, UsageGroup } from '../api/views.ts';
import { fmtCount, fmtMs, fmtPct, fmtTokens, fmtUsd } from '../components/format.ts';
import { Empty, ErrorNote, Loading } from '../components/states.tsx';
import { TimeChart } from '../components/time-chart.tsx';
import { useLoad } from '../components/use-load.ts';
import { navigate } from '../router.ts';

const MEASURES: Record<string, { label: string; of: (m: Metrics) => number; format: (v: number) => string; integer?: boolean }> = {
  calls: { label: 'Calls', of: (m) => m.calls, format: (v) => fmtCount(v, 'call'), integer: true },
  cost: { label: 'Cost', of: (m) => m.cost_usd, format: fmtUsd },
  input: { label: 'Input tokens', of: (m) => m.input_tokens, format: fmtTokens, integer: true },
  output: { label: 'Output tokens', of: (m) => m.output_tokens, format: fmtTokens, integer: true },
  errors: { label: 'Errors', of: (m) => m.errors, format: (v) => fmtCount(v, 'error'), integer: true },
};
const GROUPS = ['model', 'key', 'account', 'team'] as const;
const RANGES = [1, 7, 30, 90];

const groupName = (g: UsageGroup, by: string): string => {
  const r = g as unknown as Record<string, string | null>;
  return (by === 'model' ? r.model : r[`${by}_name`] ?? r[by]) ?? '(none)';
};

export function UsagePage({ query }: { query: URLSearchParams }) {
  const days = RANGES.includes(Number(query.get('days'))) ? Number(query.get('days')) : 7;
  const interval = query.get('interval') === 'hour' && days <= 30 ? 'hour' : 'day';
  const groupBy = (GROUPS as readonly string[]).includes(query.get('group_by') ?? '') ? (query.get('group_by') as string) : 'model';
  const measure = MEASURES[query.get('measure') ?? ''] ? (query.get('measure') as string) : 'calls';
  const key = query.get('key') ?? '';
  const set = (k: string, v: string) => {
    const q = new URLSearchParams(query);
    q.set(k, v);
    navigate(`/ai/usage?${q}`, { replace: true });
  };
  const usage = useLoad(
    () => call<Usage>(api.GET('/api/v1/usage', { params: { query: { days: String(days), interval, group_by: groupBy, ...(key ? { key } : {}) } } })),
    [days, interval, groupBy, key],
  );
  const m = MEASURES[measure];
  const chart = useMemo(() => {
    const s = usage.data?.series ?? [];
    return { times: s.map((p) => Date.parse(p.at) / 1000), series: [{ label: m.label, values: s.map((p) => m.of(p)), format: m.format, bars: true, integer: m.integer }] };
  }, [usage.data, measure]);

  return (
    <section aria-labelledby="usage-h">
      <h1 id="usage-h">Usage</h1>
      {key && <p class="row">Only the calls of one key. <a href="/ai/usage">Show every key</a></p>}
      <form class="row" aria-label="Usage view" onSubmit={(e) => e.preventDefault()}>
        <div class="field"><label for="u-days">Range</label>
          <select id="u-days" value={String(days)} onChange={(e) => set('days', e.currentTarget.value)}>
            {RANGES.map((d) => <option key={d} value={String(d)}>{d === 1 ? 'Today (UTC)' : `Last ${d} days`}</option>)}
          </select></div>
        <div class="field"><label for="u-int">Interval</label>
          <select id="u-int" value={interval} onChange={(e) => set('interval', e.currentTarget.value)}>
            <option value="day">By day</option>
            <option value="hour" disabled={days > 30}>By hour</option>
          </select></div>
        <div class="field"><label for="u-measure">Measure</label>
          <select id="u-measure" value={measure} onChange={(e) => set('measure', e.currentTarget.value)}>
            {Object.entries(MEASURES).map(([k, v]) => <option key={k} value={k}>{v.label}</option>)}
          </select></div>
        <div class="field"><label for="u-group">Group by</label>
          <select id="u-group" value={groupBy} onChange={(e) => set('group_by', e.currentTarget.value)}>
            {GROUPS.map((g) => <option key={g} value={g}>{g}</option>)}
          </select></div>
      </form>
      {usage.loading && !usage.data && <Loading what="usage" />}
      {usage.error && <ErrorNote error={usage.error} onRetry={usage.reload} />}
      {usage.data && (
        <>
          <p class="muted">
            {fmtCount(usage.data.totals.calls, 'call')}, {fmtUsd(usage.data.totals.cost_usd)}, {fmtTokens(usage.data.totals.input_tokens)} in, {fmtTokens(usage.data.totals.output_tokens)} out
            {usage.data.totals.calls > 0 && `, ${fmtPct(usage.data.totals.errors / usage.data.totals.calls, 1)} errors`}
          </p>
          {usage.data.totals.compression.on.calls > 0 && (
            <p class="muted">
              Compression saved {fmtTokens(usage.data.totals.compression.on.tokens_saved)} input over {fmtCount(usage.data.totals.compression.on.calls, 'call')},
              {' '}{fmtUsd(usage.data.totals.compression.on.dollars_saved)} to {fmtUsd(usage.data.totals.compression.on.dollars_saved_uncached)} (<a href="/ai/compression">report</a>)
            </p>
          )}
          <TimeChart times={chart.times} series={chart.series} label={`${m.label} per ${interval}, last ${days} days`} />
          {usage.data.groups.length === 0 ? (
            <Empty title="No gateway calls in this range">
              <p>Calls made with a <a href="/ai/keys">gateway key</a> appear here within seconds. Try one in the <a href="/ai/playground">playground</a>.</p>
            </Empty>
          ) : (
            <div class="table-wrap" tabIndex={0}>
              <table aria-label={`Usage by ${groupBy}`}>
                <thead>
                  <tr>
                    <th scope="col">{groupBy}</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Input</th><th scope="col" class="num">Output</th>
                    <th scope="col" class="num">Cache read / write</th><th scope="col" class="num">Cost</th><th scope="col" class="num">Error rate</th><th scope="col" class="num">p50 / p95</th>
                  </tr>
                </thead>
                <tbody>
                  {usage.data.groups.map((g, i) => (
                    <tr key={i}>
                      <td>{groupName(g, groupBy)}</td>
                      <td class="num">{fmtCount(g.calls, 'call')}</td>
                      <td class="num">{fmtTokens(g.input_tokens)}</td>
                      <td class="num">{fmtTokens(g.output_tokens)}</td>
                      <td class="num">{fmtTokens(g.cache_read_tokens)} / {fmtTokens(g.cache_write_tokens)}</td>
                      <td class="num">{fmtUsd(g.cost_usd)}</td>
                      <td class="num">{g.calls ? fmtPct(g.errors / g.calls, 1) : '—'}</td>
                      <td class="num">{fmtMs(g.latency_ms.p50)} / {fmtMs(g.latency_ms.p95)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {usage.data.truncated && <p class="muted">Only the first 1,000 groups are shown.</p>}
            </div>
          )}
        </>
      )}
    </section>
  );
}
