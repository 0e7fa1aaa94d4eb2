/**
 * The AI overview: spend, calls and errors this month (UTC), the top models and keys, and the provider accounts that
 * need attention (paused, needing sign-in, disabled). GET /api/v1/usage, GET /api/v1/accounts (superusers).
 */
import { api, call } from '../api/client.ts';
import type { Account, List, Me, Usage } from '../api/views.ts';
import { fmtCount, fmtMs, fmtPct, fmtTokens, fmtUsd } from '../components/format.ts';
import { Empty, ErrorNote, Loading } from '../components/states.tsx';
import { useLoad } from '../components/use-load.ts';

const STATE_WHY: Record<string, string> = {
  paused: 'paused: a quota window ran out; it resumes when the window resets',
  needs_sign_in: 'needs sign-in: its subscription sign-in expired or was revoked',
  disabled: 'disabled by an administrator',
};

export function Overview({ me }: { me: Me }) {
  // This calendar month so far, in UTC (as the service counts months).
  const days = new Date().getUTCDate();
  const usage = useLoad(async () => {
    const [byModel, byKey] = await Promise.all([
      call<Usage>(api.GET('/api/v1/usage', { params: { query: { days: String(days), group_by: 'model' } } })),
      call<Usage>(api.GET('/api/v1/usage', { params: { query: { days: String(days), group_by: 'key' } } })),
    ]);
    return { byModel, byKey };
  }, [days]);
  const accounts = useLoad(
    () => (me.is_superuser ? call<List<Account>>(api.GET('/api/v1/accounts', { params: { query: { limit: '200' } } })) : Promise.resolve({ items: [], next_cursor: null })),
    [me.is_superuser],
  );

  const t = usage.data?.byModel.totals;
  const attention = accounts.data?.items.filter((a) => a.state !== 'active') ?? [];
  const top = <T,>(xs: T[], by: (x: T) => number) => [...xs].sort((a, b) => by(b) - by(a)).slice(0, 5);
  return (
    <section aria-labelledby="ov-h">
      <h1 id="ov-h">AI overview</h1>
      {usage.loading && !usage.data && <Loading what="usage" />}
      {usage.error && <ErrorNote error={usage.error} onRetry={usage.reload} />}
      {t && (
        <>
          <h2>This month (UTC)</h2>
          <div class="cards">
            <div class="card"><div class="muted">Spend</div><div class="value">{fmtUsd(t.cost_usd)}</div></div>
            <div class="card"><div class="muted">Calls</div><div class="value">{fmtCount(t.calls, 'call')}</div></div>
            <div class="card"><div class="muted">Errors</div><div class="value">{fmtCount(t.errors, 'error')}</div><div class="muted">{t.calls ? fmtPct(t.errors / t.calls, 1) : '0 %'} of calls</div></div>
            <div class="card"><div class="muted">Tokens in / out</div><div class="value">{fmtTokens(t.input_tokens)}</div><div class="muted">{fmtTokens(t.output_tokens)} out</div></div>
            <div class="card"><div class="muted">Latency p50 / p95</div><div class="value">{fmtMs(t.latency_ms.p50)}</div><div class="muted">p95 {fmtMs(t.latency_ms.p95)}</div></div>
          </div>
          {t.calls === 0 ? (
            <Empty title="No gateway calls this month">
              <p><a href="/ai/keys">Create a key</a>, point an OpenAI, Anthropic or Google SDK at this service with it, or try a model in the <a href="/ai/playground">playground</a>.</p>
            </Empty>
          ) : (
            <div class="cards">
              <div>
                <h2>Top models</h2>
                <table aria-label="Top models">
                  <thead><tr><th scope="col">Model</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Cost</th></tr></thead>
                  <tbody>{top(usage.data!.byModel.groups, (g) => g.cost_usd || g.calls).map((g) => (
                    <tr key={g.model}><td>{g.model ?? '(none)'}</td><td class="num">{fmtCount(g.calls, 'call')}</td><td class="num">{fmtUsd(g.cost_usd)}</td></tr>
                  ))}</tbody>
                </table>
              </div>
              <div>
                <h2>Top keys</h2>
                <table aria-label="Top keys">
                  <thead><tr><th scope="col">Key</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Cost</th></tr></thead>
                  <tbody>{top(usage.data!.byKey.groups, (g) => g.cost_usd || g.calls).map((g) => (
                    <tr key={g.key}><td>{g.key_name ?? g.key ?? '(none)'}</td><td class="num">{fmtCount(g.calls, 'call')}</td><td class="num">{fmtUsd(g.cost_usd)}</td></tr>
                  ))}</tbody>
                </table>
              </div>
            </div>
          )}
          <p><a href="/ai/usage">See usage over time</a></p>
        </>
      )}
      {me.is_superuser && (
        <>
          <h2>Accounts needing attention</h2>
          {accounts.error && <ErrorNote error={accounts.error} onRetry={accounts.reload} />}
          {accounts.data && accounts.data.items.length === 0 && <p>No provider accounts yet. <a href="/ai/accounts">Add an account</a> so the gateway can reach a provider.</p>}
          {accounts.data && accounts.data.items.length > 0 && attention.length === 0 && <p>{fmtCount(accounts.data.items.length, 'account')}, all active.</p>}
          {attention.length > 0 && (
            <ul>{attention.map((a) => <li key={a.id}><a href="/ai/accounts">{a.name}</a> ({a.provider}): {STATE_WHY[a.state] ?? a.state}</li>)}</ul>
          )}
        </>
      )}
    </section>
  );
}
