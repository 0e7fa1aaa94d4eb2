/**
 * A project's settings: its DSN with the SDK snippet and a rotation (after a confirmation: every previous DSN is
 * refused at once), the ingest limits and scrubbing, the ingest outcomes of the last 24 hours as a chart, and its
 * releases with the issues each one introduced. GET/PATCH /api/v1/projects/{id}, POST /api/v1/projects/{id}/keys,
 * GET /api/v1/projects/{id}/stats, GET /api/v1/projects/{id}/releases.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { IngestStats, List, Project, Release } from '../api/views.ts';
import { Field, FormError } from '../components/form.tsx';
import { fmtCount } from '../components/format.ts';
import { SdkSnippet } from '../components/sdk-snippet.tsx';
import { Empty, ErrorNote, Loading } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { TimeChart } from '../components/time-chart.tsx';
import { useLoad } from '../components/use-load.ts';
import { onSubmit, useAction } from '../components/use-action.ts';
import { ProjectLinks } from './project-links.tsx';

const OUTCOMES = [
  { outcome: 'accepted', color: '--ok' },
  { outcome: 'filtered', color: '--muted' },
  { outcome: 'rate_limited', color: '--warn' },
  { outcome: 'invalid', color: '--danger' },
];

export function ProjectPage({ id }: { id: string }) {
  const project = useLoad(() => call<Project>(api.GET('/api/v1/projects/{id}', { params: { path: { id } } })), [id]);
  const stats = useLoad(() => call<IngestStats>(api.GET('/api/v1/projects/{id}/stats', { params: { path: { id } } })), [id]);
  const releases = useLoad(() => call<List<Release>>(api.GET('/api/v1/projects/{id}/releases', { params: { path: { id } } })), [id]);
  const [rotated, setRotated] = useState(false);
  const rotate = useAction(async () => {
    if (!confirm('Rotate the DSN? Every SDK still using the current DSN is refused at once, until it is given the new one.')) return;
    await call(api.POST('/api/v1/projects/{id}/keys', { params: { path: { id } }, body: {} }));
    setRotated(true);
  }, project.reload);
  const chart = useMemo(() => {
    const s = stats.data?.series ?? [];
    return {
      times: s.map((b) => Date.parse(b.at) / 1000),
      series: OUTCOMES.map((o) => ({
        label: o.outcome.replace('_', ' '),
        color: o.color,
        integer: true,
        values: s.map((b) => b.groups.filter((g) => (g.outcome ?? '').startsWith(o.outcome)).reduce((n, g) => n + g.quantity, 0)),
        format: (v: number) => fmtCount(v, 'event'),
      })),
    };
  }, [stats.data]);

  if (project.loading && !project.data) return <Loading what="the project" />;
  if (project.error && !project.data) return <ErrorNote error={project.error} onRetry={project.reload} />;
  const p = project.data!;
  return (
    <article aria-labelledby="project-h">
      <p><a href={`/errors?project=${p.id}`}>← Issues of {p.name}</a></p>
      <h1 id="project-h">{p.name} <span class="muted">settings</span></h1>
      <h2>DSN</h2>
      {rotated && <p class="note" role="status">The DSN was rotated: give the new one to your SDKs; the old one is refused.</p>}
      {p.dsn ? <SdkSnippet dsn={p.dsn} /> : <p>This project has no active DSN.</p>}
      <button type="button" class="danger" onClick={() => rotate.run()}>Rotate the DSN</button>
      {rotate.error && <ErrorNote error={rotate.error} />}

      <h2>Ingest</h2>
      <Settings p={p} onSaved={project.reload} />

      <h2>Events received, last 24 hours</h2>
      {stats.error && <ErrorNote error={stats.error} onRetry={stats.reload} />}
      {stats.data && (
        <>
          <p class="muted">{OUTCOMES.map((o) => `${fmtCount(stats.data!.totals.filter((t) => (t.outcome ?? '').startsWith(o.outcome)).reduce((n, t) => n + t.quantity, 0), 'event')} ${o.outcome.replace('_', ' ')}`).join(', ')}</p>
          <TimeChart times={chart.times} series={chart.series} label="Events accepted, filtered, rate-limited and invalid per hour, last 24 hours" height={180} />
        </>
      )}

      <h2>Releases</h2>
      {releases.error && <ErrorNote error={releases.error} onRetry={releases.reload} />}
      {releases.data?.items.length === 0 && (
        <Empty title="No releases yet">
          <p>Set <code>release</code> in the SDK (for example <code>Sentry.init({'{'} release: 'shop@1.2.0' {'}'})</code>) or register one with <code>svc errors releases create</code>; each release then lists the issues it introduced.</p>
        </Empty>
      )}
      {releases.data && releases.data.items.length > 0 && (
        <div class="table-wrap" tabIndex={0}>
          <table aria-label="Releases">
            <thead><tr><th scope="col">Version</th><th scope="col" class="num">New issues</th><th scope="col">First seen</th><th scope="col">Last seen</th></tr></thead>
            <tbody>{releases.data.items.map((r) => (
              <tr key={r.version}><td><code>{r.version}</code></td><td class="num">{fmtCount(r.new_issues, 'issue')}</td><td><Time at={r.first_seen} empty="—" /></td><td><Time at={r.last_seen} empty="—" /></td></tr>
            ))}</tbody>
          </table>
        </div>
      )}

      <ProjectLinks projectId={p.id} />
    </article>
  );
}

function Settings({ p, onSaved }: { p: Project; onSaved: () => void }) {
  const [v, setV] = useState({ events_per_minute: String(p.events_per_minute), spike_threshold: String(p.spike_threshold), retention_days: String(p.retention_days), scrub_keys: p.scrub_keys.join(', ') });
  const [saved, setSaved] = useState(false);
  const set = (k: keyof typeof v) => (e: Event) => { setSaved(false); setV({ ...v, [k]: (e.currentTarget as HTMLInputElement).value }); };
  const save = useAction(async () => {
    await call(api.PATCH('/api/v1/projects/{id}', {
      params: { path: { id: String(p.id) } },
      body: {
        events_per_minute: Number(v.events_per_minute),
        spike_threshold: Number(v.spike_threshold),
        retention_days: Number(v.retention_days),
        scrub_keys: v.scrub_keys.split(',').map((s) => s.trim()).filter(Boolean),
      },
    }));
    setSaved(true);
  }, onSaved);
  const { error } = save;
  return (
    <form aria-label="Ingest settings" onSubmit={onSubmit(save)}>
      <div class="row">
        <Field label="Events per minute" name="events_per_minute" error={error} hint="Accepted per minute; more are answered 429.">
          {(a) => <input {...a} type="number" min="0" required value={v.events_per_minute} onInput={set('events_per_minute')} />}
        </Field>
        <Field label="Spike threshold (events per hour)" name="spike_threshold" error={error}>
          {(a) => <input {...a} type="number" min="1" required value={v.spike_threshold} onInput={set('spike_threshold')} />}
        </Field>
        <Field label="Retention (days)" name="retention_days" error={error} hint="Events are kept this long; issues stay.">
          {(a) => <input {...a} type="number" min="1" required value={v.retention_days} onInput={set('retention_days')} />}
        </Field>
      </div>
      <Field label="Extra keys to scrub" name="scrub_keys" error={error} hint="Comma-separated, beside the built-in list (password, token, authorization…).">
        {(a) => <input {...a} value={v.scrub_keys} onInput={set('scrub_keys')} />}
      </Field>
      <FormError error={error} fields={['events_per_minute', 'spike_threshold', 'retention_days', 'scrub_keys']} />
      <div class="row">
        <button type="submit" class="primary">Save</button>
        {saved && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}
