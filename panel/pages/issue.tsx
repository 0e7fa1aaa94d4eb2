/**
 * One issue: title and culprit on top, counts and first/last seen, a 24 h / 30 d chart, the state actions, then the
 * chosen event (the latest by default, older ones paged) with its stack trace first, breadcrumbs as a timeline,
 * tags, user and request. GET/PATCH /api/v1/issues/{id}, GET /api/v1/issues/{id}/events, GET /api/v1/events/{id}.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, call } from '../api/client.ts';
import type { Breadcrumb, EventSummary, IssueDetail, List, SentryEvent, StoredEvent } from '../api/views.ts';
import { fmtCount } from '../components/format.ts';
import { StackTrace } from '../components/stack-trace.tsx';
import { ErrorNote, Loading } from '../components/states.tsx';
import { Time } from '../components/time.tsx';
import { TimeChart } from '../components/time-chart.tsx';
import { useLoad } from '../components/use-load.ts';
import { useAction } from '../components/use-action.ts';

type Change = { state?: 'unresolved' | 'resolved' | 'resolved_in_next_release' | 'ignored'; ignore_until_count?: number | null; assignee?: string | null };

export function IssuePage({ id }: { id: string }) {
  const [hours, setHours] = useState(24);
  const issue = useLoad(() => call<IssueDetail>(api.GET('/api/v1/issues/{id}', { params: { path: { id }, query: { hours: String(hours) } } })), [id, hours]);
  const events = useLoad(() => call<List<EventSummary>>(api.GET('/api/v1/issues/{id}/events', { params: { path: { id }, query: { limit: '50' } } })), [id]);
  const [index, setIndex] = useState(0);
  const current = events.data?.items[index];
  // Once both the event and its project are known: asked earlier, it would be asked twice (without, then with the project).
  const project = issue.data?.project;
  const event = useLoad(
    () => (current && project !== undefined ? call<StoredEvent>(api.GET('/api/v1/events/{event_id}', { params: { path: { event_id: current.event_id }, query: { project: String(project) } } })) : Promise.resolve(undefined)),
    [current?.event_id, project],
  );
  const [ignoreCount, setIgnoreCount] = useState('');
  const changeIssue = useAction((body: Change) => call(api.PATCH('/api/v1/issues/{id}', { params: { path: { id } }, body })), issue.reload);
  const change = changeIssue.run;
  const chart = useMemo(() => {
    const h = issue.data?.hourly ?? [];
    return { times: h.map((x) => Date.parse(x.hour) / 1000), series: [{ label: 'Events', values: h.map((x) => x.count), format: (v: number) => fmtCount(v, 'event'), bars: true, integer: true }] };
  }, [issue.data]);

  if (issue.loading && !issue.data) return <Loading what="the issue" />;
  if (issue.error && !issue.data) return <ErrorNote error={issue.error} onRetry={issue.reload} />;
  const i = issue.data!;
  return (
    <article aria-labelledby="issue-h">
      <p><a href={`/errors?project=${i.project}`}>← Issues</a></p>
      <h1 id="issue-h">{i.title}</h1>
      <p class="mono muted">{i.culprit}</p>
      <p class="row">
        <span class={`badge ${i.level}`}>{i.level}</span>
        <span class="badge">{i.state.replaceAll('_', ' ')}{i.resolved_in_release ? ` (${i.resolved_in_release})` : ''}{i.ignore_remaining !== null ? ` (back after ${fmtCount(i.ignore_remaining, 'more event')})` : ''}</span>
        {i.regressed && <span class="badge">regressed</span>}
        <span>{fmtCount(i.count, 'event')}</span>
        <span>{fmtCount(i.people, 'user')}</span>
        <span>First seen <Time at={i.first_seen} relative />{i.first_release && ` in ${i.first_release}`}</span>
        <span>Last seen <Time at={i.last_seen} relative />{i.last_release && ` in ${i.last_release}`}</span>
        <span>{i.assignee ? 'Assigned' : 'Unassigned'}</span>
      </p>
      <div class="row" role="group" aria-label="Issue actions">
        {i.state !== 'resolved' && <button type="button" class="primary" onClick={() => change({ state: 'resolved' })}>Resolve</button>}
        {i.state === 'unresolved' && <button type="button" onClick={() => change({ state: 'resolved_in_next_release' })}>Resolve in next release</button>}
        {i.state !== 'unresolved' && <button type="button" onClick={() => change({ state: 'unresolved' })}>Reopen</button>}
        {i.state !== 'ignored' && <button type="button" onClick={() => change({ state: 'ignored' })}>Ignore</button>}
        {i.state !== 'ignored' && (
          <span class="row">
            <label for="ignore-n">Ignore until</label>
            <input id="ignore-n" type="number" min="1" style={{ width: '7rem' }} value={ignoreCount} onInput={(e) => setIgnoreCount(e.currentTarget.value)} />
            <button type="button" disabled={!ignoreCount} onClick={() => change({ state: 'ignored', ignore_until_count: Number(ignoreCount) })}>more events</button>
          </span>
        )}
        {i.assignee ? <button type="button" onClick={() => change({ assignee: null })}>Unassign</button> : <button type="button" onClick={() => change({ assignee: 'me' })}>Assign to me</button>}
      </div>
      {changeIssue.error && <ErrorNote error={changeIssue.error} />}

      <div class="row" role="group" aria-label="Chart range">
        <h2>Events</h2>
        <button type="button" aria-pressed={hours === 24} onClick={() => setHours(24)}>24 hours</button>
        <button type="button" aria-pressed={hours === 720} onClick={() => setHours(720)}>30 days</button>
      </div>
      <TimeChart times={chart.times} series={chart.series} label={`Events per hour over the last ${hours === 24 ? '24 hours' : '30 days'}`} height={160} />

      {events.error && <ErrorNote error={events.error} onRetry={events.reload} />}
      {events.data && events.data.items.length === 0 && <p>No stored events of this issue are kept any more (retention).</p>}
      {current && (
        <section aria-labelledby="event-h">
          <div class="row">
            <h2 id="event-h">{index === 0 ? 'Latest event' : 'Older event'}</h2>
            <span class="muted mono">{current.event_id}</span>
            <Time at={current.timestamp} />
            <button type="button" disabled={index === 0} onClick={() => setIndex(index - 1)}>Newer</button>
            <button type="button" disabled={index >= events.data!.items.length - 1} onClick={() => setIndex(index + 1)}>Older</button>
            <span class="muted">{index + 1} of {events.data!.items.length}{events.data!.next_cursor ? '+' : ''}</span>
          </div>
          {event.loading && !event.data && <Loading what="the event" />}
          {event.error && <ErrorNote error={event.error} onRetry={event.reload} />}
          {event.data && <EventBody e={event.data} />}
        </section>
      )}
    </article>
  );
}

const pairs = (x: Record<string, unknown> | [string, unknown][] | undefined): [string, string][] =>
  (Array.isArray(x) ? x : Object.entries(x ?? {})).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);

function crumbs(e: SentryEvent): Breadcrumb[] {
  const b = e.breadcrumbs;
  return Array.isArray(b) ? b : (b?.values ?? []);
}

const crumbTime = (t: Breadcrumb['timestamp']) => (t === undefined ? null : typeof t === 'number' ? new Date(t * 1000).toISOString() : t);

function EventBody({ e }: { e: StoredEvent }) {
  const d = e.data;
  const tags = pairs(d.tags);
  const b = crumbs(d);
  return (
    <>
      <h3>Stack trace</h3>
      <StackTrace event={d} />
      <h3>Breadcrumbs</h3>
      {b.length === 0 ? <p class="muted">No breadcrumbs were sent.</p> : (
        <ol class="crumbs" aria-label="Breadcrumbs, oldest first">
          {b.map((c, i) => (
            <li key={i}>
              <Time at={crumbTime(c.timestamp)} empty="" /> <span class="badge">{c.category ?? c.type ?? 'default'}</span> {c.level && c.level !== 'info' && <span class={`badge ${c.level}`}>{c.level}</span>} {c.message ?? (c.data ? JSON.stringify(c.data) : '')}
            </li>
          ))}
        </ol>
      )}
      <h3>Tags</h3>
      {tags.length === 0 ? <p class="muted">No tags.</p> : (
        <table aria-label="Tags"><tbody>{tags.map(([k, v]) => <tr key={k}><th scope="row">{k}</th><td>{v}</td></tr>)}</tbody></table>
      )}
      {e.release && <p>Release <code>{e.release}</code>{e.environment && <> · environment <code>{e.environment}</code></>}</p>}
      {d.user && <><h3>User</h3><table aria-label="User"><tbody>{pairs(d.user).map(([k, v]) => <tr key={k}><th scope="row">{k}</th><td>{v}</td></tr>)}</tbody></table></>}
      {d.request && <><h3>Request</h3><p class="mono">{d.request.method ?? 'GET'} {d.request.url}</p></>}
    </>
  );
}
