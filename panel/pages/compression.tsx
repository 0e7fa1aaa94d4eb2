/**
 * Compression of long conversations (docs/compression.md): the savings report (what `on` saved and `audit-only` would
 * have saved, by model, key or team), the instance settings for superusers (mode, last turns kept, model rules) and
 * each team's mode for its admins. A key's mode is set on the keys page. GET /api/v1/compression/report,
 * GET/PUT /api/v1/settings/compression, GET/PUT /api/v1/teams/{id}/compression.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import {
  COMPRESSION_MODES as MODES, type CompressionMode as Mode, type CompressionReportItem as ReportItem, type CompressionRule as Rule, type CompressionSettings as Settings, type Me,
} from '../api/views.ts';
import { Field, FormError } from '../components/form.tsx';
import { fmtCount, fmtTokens, fmtUsd } from '../components/format.ts';
import { Empty, ErrorNote, Loading } from '../components/states.tsx';
import { onSubmit, useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';


export function Compression({ me }: { me: Me }) {
  const [groupBy, setGroupBy] = useState<'model' | 'key' | 'team'>('model');
  const report = useLoad(() => call<{ items: ReportItem[] }>(api.GET('/api/v1/compression/report', { params: { query: { days: '30', group_by: groupBy } } })), [groupBy]);
  const admin = me.teams.filter((t) => t.role === 'admin' || t.role === 'owner');
  return (
    <section aria-labelledby="comp-h">
      <h1 id="comp-h">Compression</h1>
      <h2>Savings, last 30 days</h2>
      <div class="field"><label for="comp-group">Group by</label>
        <select id="comp-group" value={groupBy} onChange={(e) => setGroupBy(e.currentTarget.value as 'model')}><option value="model">model</option><option value="key">key</option><option value="team">team</option></select></div>
      {report.loading && !report.data && <Loading what="the savings report" />}
      {report.error && <ErrorNote error={report.error} onRetry={report.reload} />}
      {report.data?.items.length === 0 && (
        <Empty title="Nothing compressed yet">
          <p>Set the mode to <code>audit-only</code> to see what compression would save without changing any call, or <code>on</code> to compress long conversations{me.is_superuser ? ' (instance settings below)' : ' (ask a superuser)'}.</p>
        </Empty>
      )}
      {report.data && report.data.items.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label="Compression savings">
            <thead><tr><th scope="col">{groupBy}</th><th scope="col">Mode</th><th scope="col" class="num">Net, cached</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Tokens before</th><th scope="col" class="num">Tokens saved</th><th scope="col" class="num">Saved (cached – uncached)</th><th scope="col" class="num">Cache breaks (their cost)</th></tr></thead>
            <tbody>{report.data.items.map((r) => (
              <tr key={`${r.group}-${r.mode}`}>
                <td>{r.group}</td><td>{r.mode === 'on' ? 'on' : 'audit-only (would save)'}</td>
                {/* The net first: what to judge `on` by, in view on a narrow screen before the table scrolls. */}
                <td class="num">{r.dollars_saved_net < 0 ? `−${fmtUsd(-r.dollars_saved_net)} (dearer)` : fmtUsd(r.dollars_saved_net)}</td>
                <td class="num">{fmtCount(r.calls, 'call')}</td><td class="num">{fmtTokens(r.tokens_before)}</td><td class="num">{fmtTokens(r.tokens_saved)}</td>
                <td class="num">{fmtUsd(r.dollars_saved)} – {fmtUsd(r.dollars_saved_uncached)}</td>
                <td class="num">{fmtCount(r.cache_breaks, 'break')} ({fmtUsd(r.dollars_cache_rewrites)})</td>
              </tr>
            ))}</tbody>
          </table>
        </div>
      )}
      {me.is_superuser && <InstanceSettings />}
      {admin.length > 0 && <h2>Team modes</h2>}
      {admin.map((t) => <TeamMode key={t.id} team={t} />)}
    </section>
  );
}

function InstanceSettings() {
  const settings = useLoad(() => call<Settings>(api.GET('/api/v1/settings/compression')), []);
  if (settings.loading && !settings.data) return <Loading what="the compression settings" />;
  if (settings.error) return <ErrorNote error={settings.error} onRetry={settings.reload} />;
  return <SettingsForm s={settings.data!} onSaved={settings.reload} />;
}

function SettingsForm({ s, onSaved }: { s: Settings; onSaved: () => void }) {
  const [mode, setMode] = useState<Mode>(s.mode);
  const [keep, setKeep] = useState(String(s.keep_last_turns));
  const [rules, setRules] = useState(s.rules.map((r) => `${r.pattern}${r.mode ? `=${r.mode}` : ''}`).join(', '));
  const [warnings, setWarnings] = useState<string[]>([]);
  const save = useAction(async () => {
    const parsed = rules.split(',').map((x) => x.trim()).filter(Boolean).map((x) => {
      const [pattern, m] = x.split('=');
      return { pattern: pattern.trim(), ...(m ? { mode: m.trim() as Mode } : {}) };
    });
    const r = await call<Settings & { warnings?: string[] }>(api.PUT('/api/v1/settings/compression', { body: { mode, keep_last_turns: Number(keep), rules: parsed } }));
    setWarnings(r.warnings ?? []);
  }, onSaved);
  return (
    <form class="note" aria-label="Instance compression settings" onSubmit={onSubmit(save)}>
      <h2>Instance settings</h2>
      <div class="row">
        <Field label="Mode" name="mode" error={save.error} hint="Teams, keys and rules can only lower it.">
          {(p) => <select {...p} value={mode} onChange={(e) => setMode(e.currentTarget.value as Mode)}>{MODES.map((m) => <option key={m} value={m}>{m}</option>)}</select>}
        </Field>
        <Field label="Last turns never touched" name="keep_last_turns" error={save.error}>
          {(p) => <input {...p} type="number" min="0" required value={keep} onInput={(e) => setKeep(e.currentTarget.value)} />}
        </Field>
      </div>
      <Field label="Model rules" name="rules" error={save.error} hint="Comma-separated pattern=mode, e.g. claude-haiku-*=off, gpt-5*=audit-only.">
        {(p) => <input {...p} value={rules} onInput={(e) => setRules(e.currentTarget.value)} />}
      </Field>
      <FormError error={save.error} fields={['mode', 'keep_last_turns', 'rules']} />
      {warnings.map((w) => <p key={w} class="muted" role="status">{w}</p>)}
      <button type="submit" class="primary">Save</button>
    </form>
  );
}

function TeamMode({ team }: { team: { id: string; name: string } }) {
  const current = useLoad(() => call<{ mode: Mode | null }>(api.GET('/api/v1/teams/{id}/compression', { params: { path: { id: team.id } } })), [team.id]);
  const set = useAction((mode: Mode | null) => call(api.PUT('/api/v1/teams/{id}/compression', { params: { path: { id: team.id } }, body: { mode } })), current.reload);
  return (
    <div class="field">
      <label for={`comp-${team.id}`}>Mode of team {team.name}</label>
      <select id={`comp-${team.id}`} value={current.data?.mode ?? ''} disabled={!current.data} onChange={(e) => set.run((e.currentTarget.value || null) as Mode | null)}>
        <option value="">inherit the instance mode</option>
        {MODES.map((m) => <option key={m} value={m}>{m}</option>)}
      </select>
      {(set.error ?? current.error) && <small class="field-error" role="alert">{(set.error ?? current.error)!.message}</small>}
    </div>
  );
}
