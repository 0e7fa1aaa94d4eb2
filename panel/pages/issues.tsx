/**
 * Error issues of a project: filters (state, level, text) and sort in the URL, events per hour over the last day as a
 * sparkline per issue (one query for the page: ?hourly=24), bulk resolve / ignore, and an empty
 * state with the DSN and how to send a first event. No project yet: create one.
 * GET /api/v1/projects, GET/PATCH /api/v1/projects/{id}/issues, POST /api/v1/projects.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { Issue, List, Me, Project } from '../api/views.ts';
import { Field, FormError } from '../components/form.tsx';
import { fmtCount } from '../components/format.ts';
import { SdkSnippet } from '../components/sdk-snippet.tsx';
import { Empty, ErrorNote, Loading, MoreButton } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { useLoad } from '../components/use-load.ts';
import { Sparkline } from '../components/sparkline.tsx';
import { usePages } from '../components/use-pages.ts';
import { onSubmit, useAction } from '../components/use-action.ts';
import { navigate } from '../router.ts';

const STATES = ['unresolved', 'resolved', 'resolved_in_next_release', 'ignored'];
const LEVELS = ['fatal', 'error', 'warning', 'info', 'debug'];
const SORTS = { last_seen: 'Last seen', first_seen: 'First seen', count: 'Events', people: 'Users' };

export function Issues({ me, query }: { me: Me; query: URLSearchParams }) {
  const projects = useLoad(() => call<List<Project>>(api.GET('/api/v1/projects', { params: { query: { limit: '200' } } })), []);
  const list = projects.data?.items ?? [];
  const project = list.find((p) => String(p.id) === query.get('project')) ?? list[0];
  const set = (k: string, v: string) => {
    const q = new URLSearchParams(query);
    if (v) q.set(k, v);
    else q.delete(k);
    navigate(`/errors?${q}`, { replace: true });
  };
  return (
    <section aria-labelledby="issues-h">
      <h1 id="issues-h">Issues</h1>
      {projects.loading && !projects.data && <Loading what="projects" />}
      {projects.error && <ErrorNote error={projects.error} onRetry={projects.reload} />}
      {projects.data && list.length === 0 && <NewProject me={me} onCreated={(p) => { projects.reload(); set('project', String(p.id)); }} />}
      {project && (
        <>
          <div class="field">
            <label for="i-project">Project</label>
            <select id="i-project" value={String(project.id)} onChange={(e) => set('project', e.currentTarget.value)}>
              {list.map((p) => <option key={p.id} value={String(p.id)}>{p.name}</option>)}
            </select>
            <a href={`/errors/projects/${project.id}`}>Settings, DSN and releases of {project.name}</a>
          </div>
          <IssueList project={project} query={query} set={set} />
        </>
      )}
    </section>
  );
}

function IssueList({ project, query, set }: { project: Project; query: URLSearchParams; set: (k: string, v: string) => void }) {
  const state = query.get('state') ?? 'unresolved';
  const level = query.get('level') ?? '';
  const q = query.get('q') ?? '';
  const sort = query.get('sort') ?? 'last_seen';
  const [text, setText] = useState(q);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const issues = usePages(
    (cursor) => call<List<Issue>>(api.GET('/api/v1/projects/{id}/issues', { params: { path: { id: String(project.id) }, query: { state, sort, limit: '100', hourly: '24', ...(level ? { level } : {}), ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) } } })),
    [project.id, state, level, q, sort],
  );
  const bulk = useAction(async (change: { state: 'resolved' | 'ignored' }) => {
    await call(api.PATCH('/api/v1/projects/{id}/issues', { params: { path: { id: String(project.id) } }, body: { ids: [...picked], ...change } }));
    setPicked(new Set());
  }, issues.reload);
  const toggle = (id: string) => {
    const next = new Set(picked);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setPicked(next);
  };
  const filtered = state !== 'unresolved' || level !== '' || q !== '';
  return (
    <>
      <form class="row" aria-label="Filter issues" onSubmit={(e) => { e.preventDefault(); set('q', text.trim()); }}>
        <div class="field"><label for="i-state">State</label>
          <select id="i-state" value={state} onChange={(e) => set('state', e.currentTarget.value)}>{STATES.map((s) => <option key={s} value={s}>{s.replaceAll('_', ' ')}</option>)}</select></div>
        <div class="field"><label for="i-level">Level</label>
          <select id="i-level" value={level} onChange={(e) => set('level', e.currentTarget.value)}><option value="">any</option>{LEVELS.map((s) => <option key={s} value={s}>{s}</option>)}</select></div>
        <div class="field"><label for="i-sort">Sort by</label>
          <select id="i-sort" value={sort} onChange={(e) => set('sort', e.currentTarget.value)}>{Object.entries(SORTS).map(([k, v]) => <option key={k} value={k}>{v}</option>)}</select></div>
        <div class="field"><label for="i-q">Title contains</label><input id="i-q" type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} /></div>
        <button type="submit">Search</button>
      </form>
      {bulk.error && <ErrorNote error={bulk.error} />}
      {issues.loading && !issues.items && <Loading what="issues" />}
      {issues.error && <ErrorNote error={issues.error} onRetry={issues.reload} />}
      {issues.items && issues.items.length === 0 && (filtered ? (
        <Empty title="No issues match">
          <p>Nothing {state.replaceAll('_', ' ')}{level && ` at level ${level}`}{q && ` containing "${q}"`}. <a href={`/errors?project=${project.id}`}>Show unresolved issues</a>.</p>
        </Empty>
      ) : (
        <Empty title="No issues yet: send your first event">
          <p>Give any Sentry SDK this project's DSN; errors appear here within seconds.</p>
          {project.dsn ? <SdkSnippet dsn={project.dsn} /> : <p>This project has no active DSN.</p>}
        </Empty>
      ))}
      {issues.items && issues.items.length > 0 && (
        <>
          <div class="row" role="group" aria-label="Change the selected issues">
            <span class="muted">{fmtCount(picked.size, 'issue')} selected</span>
            <button type="button" disabled={picked.size === 0} onClick={() => bulk.run({ state: 'resolved' })}>Resolve selected</button>
            <button type="button" disabled={picked.size === 0} onClick={() => bulk.run({ state: 'ignored' })}>Ignore selected</button>
          </div>
          <div class="table-wrap" tabIndex={0}>
            <table aria-label="Issues">
              <thead><tr><th scope="col"><span class="muted">Select</span></th><th scope="col">Issue</th><th scope="col">Level</th><th scope="col">Last 24 h</th><th scope="col" class="num">Events</th><th scope="col" class="num">Users</th><th scope="col">Last seen</th><th scope="col">First seen</th></tr></thead>
              <tbody>
                {issues.items.map((i) => (
                  <tr key={i.id}>
                    <td><input type="checkbox" checked={picked.has(i.id)} onChange={() => toggle(i.id)} aria-label={`Select ${i.title}`} /></td>
                    <td><a href={`/errors/issues/${i.id}`}>{i.title}</a>{i.regressed && <span class="badge"> regressed</span>}<div class="muted mono">{i.culprit}</div></td>
                    <td><span class={`badge ${i.level}`}>{i.level}</span></td>
                    <td><Sparkline values={i.hourly ?? []} label="Events per hour, last 24 hours" /></td>
                    <td class="num">{fmtCount(i.count, 'event')}</td>
                    <td class="num">{fmtCount(i.people, 'user')}</td>
                    <td><Time at={i.last_seen} relative /></td>
                    <td><Time at={i.first_seen} relative /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <MoreButton pages={issues} what="issues" />
        </>
      )}
    </>
  );
}

function NewProject({ me, onCreated }: { me: Me; onCreated: (p: Project) => void }) {
  const writable = me.teams.filter((t) => t.role !== 'viewer');
  const [name, setName] = useState('');
  const [team, setTeam] = useState(writable[0]?.id ?? '');
  const create = useAction(async () => onCreated(await call<Project>(api.POST('/api/v1/projects', { body: { name }, headers: { 'x-svc-team': team } }))));
  const { error } = create;
  return (
    <Empty title="No projects yet: create one">
      <p>A project collects the errors of one application; it gets a DSN for the Sentry SDKs.</p>
      <form onSubmit={onSubmit(create)} aria-label="Create a project">
        <Field label="Project name" name="name" error={error}>{(p) => <input {...p} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
        <Field label="Team" name="team" error={error}>
          {(p) => <select {...p} value={team} onChange={(e) => setTeam(e.currentTarget.value)}>{writable.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}</select>}
        </Field>
        <FormError error={error} fields={['name', 'team']} />
        <button type="submit" class="primary">Create project</button>
      </form>
    </Empty>
  );
}
