/**
 * svc errors issues list <project> | resolve | ignore | assign <id>, svc errors issue <id> [--resolve|--resolve-next|--ignore|--unresolve]
 * [--assign-me|--unassign], and svc errors releases create|list (/api/v1/projects/{id}/issues, /api/v1/issues/{id},
 * /api/v1/projects/{id}/releases).
 */
import { seg } from '../api-client.ts';
import { CliError, isCliError } from '../cli-error.ts';
import { defineCommand, defineGroup } from '../command.ts';
import type { ApiClient } from '../api-client.ts';
import type { Column } from '../output.ts';
import { resolveProject } from './errors-projects.ts';
import { renderStackTrace, type StoredEvent } from './stack-trace.ts';

interface Issue {
  id: string;
  project: number;
  title: string;
  culprit: string;
  level: string;
  state: string;
  regressed: boolean;
  count: number;
  people: number;
  first_seen: string;
  last_seen: string;
  first_release: string | null;
  last_release: string | null;
  assignee: string | null;
  last_event_id: string | null;
  url: string;
  hourly?: Array<{ hour: string; count: number }>;
}

interface Release {
  version: string;
  registered: boolean;
  ref: string | null;
  url: string | null;
  created_at: string;
  first_seen: string | null;
  last_seen: string | null;
  new_issues: number;
}

const COLUMNS: Column<Issue>[] = [
  { title: 'id', value: (i) => i.id },
  { title: 'state', value: (i) => (i.regressed ? `${i.state} (regressed)` : i.state) },
  { title: 'level', value: (i) => i.level },
  { title: 'count', align: 'right', value: (i) => i.count },
  { title: 'people', align: 'right', value: (i) => i.people },
  { title: 'last seen', value: (i) => i.last_seen },
  { title: 'title', value: (i) => i.title },
];

const FILTERS = ['state', 'level', 'release', 'environment', 'assignee', 'sort', 'q'] as const;

const list = defineCommand({
  name: 'list',
  summary: "List a project's issues (most recently seen first)",
  args: [{ name: 'project', required: true, description: 'Project id or slug.' }],
  options: {
    team: { type: 'string', value: 'TEAM', description: 'The team, when several have a project with this slug.' },
    state: { type: 'string', value: 'STATE', description: 'unresolved, resolved, resolved_in_next_release or ignored (several: comma-separated).' },
    level: { type: 'string', value: 'LEVEL', description: 'fatal, error, warning, info or debug.' },
    release: { type: 'string', value: 'VERSION', description: 'Issues first or last seen in this release.' },
    environment: { type: 'string', value: 'ENV', description: 'Issues seen in this environment.' },
    assignee: { type: 'string', value: 'me|none', description: 'Assigned to you, or to nobody.' },
    regressed: { type: 'boolean', description: 'Only regressed issues.' },
    q: { type: 'string', value: 'TEXT', description: 'Text the title contains.' },
    sort: { type: 'string', value: 'KEY', description: 'last_seen (default), first_seen, count or people.' },
    limit: { type: 'string', value: 'N', description: 'At most N issues (default 50).' },
  },
  examples: ['svc errors issues list web-shop --state unresolved', 'svc errors issues list 12 --sort count --limit 10 --json'],
  async run(ctx) {
    const api = ctx.api();
    const id = await resolveProject(api, ctx.args.project as string, ctx.opts.team);
    const query: Record<string, string | undefined> = { limit: ctx.opts.limit ?? '50' };
    for (const f of FILTERS) query[f] = ctx.opts[f];
    if (ctx.opts.regressed) query.regressed = 'true';
    const page = await api.get<{ items: Issue[]; next_cursor: string | null }>(`/api/v1/projects/${id}/issues`, query);
    ctx.out.result(page, () => ctx.out.table(page.items, COLUMNS, 'No issues.'));
  },
});

/** `svc errors issues resolve|ignore|assign <id>`: one change each, the same as `svc errors issue <id> --…`. */
function changeCommand(name: string, summary: string, body: (opts: Record<string, string | boolean | undefined>) => Record<string, unknown>, options = {}) {
  return defineCommand({
    name,
    summary,
    args: [{ name: 'id', required: true, description: 'The issue id.' }],
    options,
    examples: [`svc errors issues ${name} 3f2a9c0d1e4b5a67`],
    async run(ctx) {
      const issue = await ctx.api().request<Issue>('PATCH', `/api/v1/issues/${seg(ctx.args.id as string)}`, { body: body(ctx.opts) });
      ctx.out.result(issue, () => ctx.out.line(`Issue ${issue.id} is ${issue.state}${issue.assignee ? `, assigned to ${issue.assignee}` : ''}.`));
    },
  });
}

const resolve = changeCommand('resolve', 'Mark an issue resolved', () => ({ state: 'resolved' }));
const ignore = changeCommand('ignore', 'Ignore an issue (with --count N: until N more events)', (o) => {
  if (o.count !== undefined && !/^\d{1,10}$/.test(String(o.count))) throw new CliError('usage', `--count must be a whole number (got "${String(o.count)}").`, { helpFor: 'svc errors issues ignore' });
  return o.count === undefined ? { state: 'ignored' } : { state: 'ignored', ignore_until_count: Number(o.count) };
}, { count: { type: 'string', value: 'N', description: 'Back to unresolved after N more events.' } });
const assign = changeCommand('assign', 'Take an issue (assign it to yourself)', () => ({ assignee: 'me' }));

export const issuesGroup = defineGroup('issues', "List a project's issues; resolve, ignore or take one", [list, resolve, ignore, assign]);

function issueFields(i: Issue): [string, unknown][] {
  const recent = i.hourly ? i.hourly.reduce((n, h) => n + h.count, 0) : undefined;
  return [
    ['id', i.id], ['title', i.title], ['culprit', i.culprit], ['level', i.level], ['state', i.state], ['regressed', i.regressed],
    ['assignee', i.assignee], ['count', i.count], ['people', i.people], ['last 24 h', recent], ['first seen', i.first_seen],
    ['last seen', i.last_seen], ['first release', i.first_release], ['last release', i.last_release], ['url', i.url],
  ];
}

const STATE_FLAGS = { resolve: 'resolved', 'resolve-next': 'resolved_in_next_release', ignore: 'ignored', unresolve: 'unresolved' } as const;

export const issueCommand = defineCommand({
  name: 'issue',
  summary: 'Show an issue, or change its state and assignee',
  args: [{ name: 'id', required: true, description: 'The issue id.' }],
  options: {
    resolve: { type: 'boolean', description: 'Mark it resolved (the next event regresses it).' },
    'resolve-next': { type: 'boolean', description: 'Resolved in the next release.' },
    ignore: { type: 'boolean', description: 'Ignore it (with --ignore-count: until N more events).' },
    'ignore-count': { type: 'string', value: 'N', description: 'With --ignore: back to unresolved after N more events.' },
    unresolve: { type: 'boolean', description: 'Mark it unresolved.' },
    'assign-me': { type: 'boolean', description: 'Take the issue.' },
    unassign: { type: 'boolean', description: 'Assign it to nobody.' },
  },
  examples: ['svc errors issue 3f2a9c0d1e4b5a67', 'svc errors issue 3f2a9c0d1e4b5a67 --resolve --assign-me', 'svc errors issue 3f2a9c0d1e4b5a67 --ignore --ignore-count 100'],
  async run(ctx) {
    const help = 'svc errors issue';
    const o = ctx.opts;
    const states = (Object.keys(STATE_FLAGS) as (keyof typeof STATE_FLAGS)[]).filter((f) => o[f]);
    if (states.length > 1) throw new CliError('usage', `Give one of --${states.join(', --')}, not several.`, { helpFor: help });
    if (o['assign-me'] && o.unassign) throw new CliError('usage', 'Give --assign-me or --unassign, not both.', { helpFor: help });
    if (o['ignore-count'] !== undefined && !o.ignore) throw new CliError('usage', '--ignore-count goes with --ignore.', { helpFor: help });
    const body: Record<string, unknown> = {};
    if (states.length) body.state = STATE_FLAGS[states[0]];
    if (o['ignore-count'] !== undefined) {
      if (!/^\d{1,10}$/.test(o['ignore-count'])) throw new CliError('usage', `--ignore-count must be a whole number (got "${o['ignore-count']}").`, { helpFor: help });
      body.ignore_until_count = Number(o['ignore-count']);
    }
    if (o['assign-me']) body.assignee = 'me';
    if (o.unassign) body.assignee = null;
    const api = ctx.api();
    const path = `/api/v1/issues/${seg(ctx.args.id as string)}`;
    if (Object.keys(body).length) await api.request<Issue>('PATCH', path, { body });
    const issue = await api.get<Issue>(path);
    const event = await latestEvent(api, issue);
    ctx.out.result({ ...issue, latest_event: event }, () => {
      ctx.out.fields(issueFields(issue));
      if (!event) return;
      const where = [event.release && `release ${event.release}`, event.environment].filter(Boolean).join(', ');
      ctx.out.line(`\nLatest event ${event.event_id} at ${event.timestamp.replace(/\.\d+Z$/, 'Z')}${where ? ` (${where})` : ''}:`);
      ctx.out.line(renderStackTrace(event).trimEnd() || 'No stack trace in this event.');
    });
  },
});

/** The issue's latest stored event, or null when it has none left (retention deletes events, not issues). */
async function latestEvent(api: ApiClient, issue: Issue): Promise<StoredEvent | null> {
  if (!issue.last_event_id) return null;
  try {
    return await api.get<StoredEvent>(`/api/v1/events/${seg(issue.last_event_id)}`, { project: issue.project });
  } catch (e) {
    if (isCliError(e) && e.code === 'not_found') return null;
    throw e;
  }
}

const RELEASE_COLUMNS: Column<Release>[] = [
  { title: 'version', value: (r) => r.version },
  { title: 'registered', value: (r) => r.registered },
  { title: 'ref', value: (r) => r.ref },
  { title: 'first seen', value: (r) => r.first_seen },
  { title: 'last seen', value: (r) => r.last_seen },
  { title: 'new issues', value: (r) => r.new_issues },
];

const createRelease = defineCommand({
  name: 'create',
  summary: 'Register a release (from CI, with a deploy token)',
  args: [
    { name: 'project', description: 'Project id or slug (or --project).' },
    { name: 'version', description: 'The version, as the SDK sends it in `release` (or --version).' },
  ],
  options: {
    project: { type: 'string', value: 'PROJECT', description: 'Project id or slug, instead of the first argument.' },
    version: { type: 'string', value: 'VERSION', description: 'The version, instead of the second argument.' },
    team: { type: 'string', value: 'TEAM', description: 'The team, when several have a project with this slug.' },
    ref: { type: 'string', value: 'REF', description: 'Source revision (commit, tag).' },
    url: { type: 'string', value: 'URL', description: 'A link: the CI run, the changelog.' },
  },
  examples: ['svc errors releases create web-shop 1.4.2 --ref "$GIT_COMMIT"', 'svc errors releases create --project 12 --version 1.4.2', 'SVC_TOKEN=$DEPLOY_TOKEN svc errors releases create 12 "web@$(git describe)"'],
  async run(ctx) {
    const project = ctx.args.project ?? ctx.opts.project;
    const version = ctx.args.version ?? ctx.opts.version;
    if (!project || version === undefined) throw new CliError('usage', 'Name the project and the version: svc errors releases create <project> <version>.', { helpFor: 'svc errors releases create' });
    const api = ctx.api();
    const id = await resolveProject(api, project, ctx.opts.team);
    const body: Record<string, string> = { version };
    if (ctx.opts.ref !== undefined) body.ref = ctx.opts.ref;
    if (ctx.opts.url !== undefined) body.url = ctx.opts.url;
    const r = await api.post<Release>(`/api/v1/projects/${id}/releases`, body);
    ctx.out.result(r, () => ctx.out.line(`Registered release ${r.version} of project ${id}.`));
  },
});

const listReleases = defineCommand({
  name: 'list',
  summary: "List a project's releases, newest first",
  args: [{ name: 'project', required: true, description: 'Project id or slug.' }],
  options: { team: { type: 'string', value: 'TEAM', description: 'The team, when several have a project with this slug.' } },
  examples: ['svc errors releases list web-shop'],
  async run(ctx) {
    const api = ctx.api();
    const id = await resolveProject(api, ctx.args.project as string, ctx.opts.team);
    const items = await api.listAll<Release>(`/api/v1/projects/${id}/releases`);
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, RELEASE_COLUMNS, 'No releases.'));
  },
});

export const releasesGroup = defineGroup('releases', 'Register and list releases', [createRelease, listReleases]);
