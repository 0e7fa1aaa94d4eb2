/** svc errors projects list | create | show | rotate-key (/api/v1/projects), and how a <project> argument is read. */
import type { ApiClient } from '../api-client.ts';
import { seg } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand, defineGroup } from '../command.ts';
import type { Column } from '../output.ts';
import { LINK_COLUMNS, type Link } from './link-columns.ts';

export interface Project {
  id: number;
  team: string;
  name: string;
  slug: string;
  platform: string | null;
  dsn: string | null;
  public_key: string | null;
  events_per_minute: number;
  spike_threshold: number;
  scrub_keys: string[];
  retention_days: number;
  created_at: string;
}

const COLUMNS: Column<Project>[] = [
  { title: 'id', value: (p) => p.id },
  { title: 'slug', value: (p) => p.slug },
  { title: 'name', value: (p) => p.name },
  { title: 'events/min', value: (p) => p.events_per_minute },
  { title: 'retention', value: (p) => `${p.retention_days}d` },
  { title: 'dsn', value: (p) => p.dsn },
];

/** A project by numeric id, or by slug (with --team when several teams use it). */
export async function resolveProject(api: ApiClient, ref: string, team?: string): Promise<number> {
  if (/^\d+$/.test(ref)) return Number(ref);
  const page = await api.get<{ items: Project[] }>('/api/v1/projects', { slug: ref, team, limit: 2 });
  if (page.items.length === 1) return page.items[0].id;
  if (page.items.length === 0) throw new CliError('api', `No project you can see has the id or slug "${ref}".`, { status: 404, code: 'not_found' });
  throw new CliError('usage', `Several teams have a project "${ref}"; give its numeric id or --team.`);
}

export function projectFields(p: Project): [string, unknown][] {
  return [
    ['id', p.id], ['name', p.name], ['slug', p.slug], ['team', p.team], ['platform', p.platform], ['dsn', p.dsn],
    ['events per minute', p.events_per_minute], ['spike threshold', `${p.spike_threshold} an hour`],
    ['scrub keys', p.scrub_keys.join(', ')], ['retention', `${p.retention_days} days`], ['created', p.created_at],
  ];
}

const number = (flag: string, raw: string | undefined, helpFor: string): number | undefined => {
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw new CliError('usage', `--${flag} must be a whole number (got "${raw}").`, { helpFor });
  return Number(raw);
};

const list = defineCommand({
  name: 'list',
  summary: 'List the error-tracking projects you can see',
  options: { team: { type: 'string', value: 'TEAM', description: 'Only this team (name or id).' } },
  examples: ['svc errors projects list', 'svc errors projects list --team payments --json'],
  async run(ctx) {
    const items = await ctx.api().listAll<Project>('/api/v1/projects', { team: ctx.opts.team });
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, COLUMNS, 'No projects.'));
  },
});

const create = defineCommand({
  name: 'create',
  summary: 'Create a project in a team; prints its DSN',
  args: [{ name: 'name', required: true, description: 'The project name, e.g. "Web shop".' }],
  options: {
    team: { type: 'string', value: 'TEAM', required: true, description: 'The team it belongs to (name or id).' },
    slug: { type: 'string', value: 'SLUG', description: 'Lowercase letters, digits and hyphens (default: from the name).' },
    platform: { type: 'string', value: 'PLATFORM', description: 'e.g. javascript, python, go.' },
    'events-per-minute': { type: 'string', value: 'N', description: 'Accepted events per minute (default 600).' },
    'spike-threshold': { type: 'string', value: 'N', description: 'Events of one issue within an hour that make a spike (default 100).' },
    'retention-days': { type: 'string', value: 'N', description: 'Days events are kept (default 30).' },
    'scrub-keys': { type: 'string', value: 'K1,K2', description: 'Extra keys to scrub, comma-separated.' },
  },
  examples: ['svc errors projects create "Web shop" --team payments --platform javascript'],
  async run(ctx) {
    const help = 'svc errors projects create';
    const o = ctx.opts;
    const body: Record<string, unknown> = { name: ctx.args.name };
    if (o.slug !== undefined) body.slug = o.slug;
    if (o.platform !== undefined) body.platform = o.platform;
    const epm = number('events-per-minute', o['events-per-minute'], help);
    const spike = number('spike-threshold', o['spike-threshold'], help);
    const days = number('retention-days', o['retention-days'], help);
    if (epm !== undefined) body.events_per_minute = epm;
    if (spike !== undefined) body.spike_threshold = spike;
    if (days !== undefined) body.retention_days = days;
    if (o['scrub-keys'] !== undefined) body.scrub_keys = o['scrub-keys'].split(',').map((k) => k.trim()).filter(Boolean);
    const p = await ctx.api().post<Project>('/api/v1/projects', body, { 'x-svc-team': o.team as string });
    ctx.out.result(p, () => {
      ctx.out.fields(projectFields(p));
      ctx.out.line();
      ctx.out.line('Give SDKs this DSN:');
      ctx.out.line(p.dsn ?? '');
    });
  },
});

const show = defineCommand({
  name: 'show',
  summary: 'Show a project, its settings and its DSN',
  args: [{ name: 'project', required: true, description: 'Project id or slug.' }],
  options: { team: { type: 'string', value: 'TEAM', description: 'The team, when several have a project with this slug.' } },
  examples: ['svc errors projects show 12', 'svc errors projects show web-shop --team payments'],
  async run(ctx) {
    const api = ctx.api();
    const id = await resolveProject(api, ctx.args.project as string, ctx.opts.team);
    const p = await api.get<Project>(`/api/v1/projects/${id}`);
    ctx.out.result(p, () => ctx.out.fields(projectFields(p)));
  },
});

const rotateKey = defineCommand({
  name: 'rotate-key',
  summary: 'Give a project a new DSN; the old one is refused at once; linked apps and aliases get the new one',
  args: [{ name: 'project', required: true, description: 'Project id or slug.' }],
  options: {
    team: { type: 'string', value: 'TEAM', description: 'The team, when several have a project with this slug.' },
    restart: { type: 'boolean', description: 'Also restart the linked apps, which read the DSN only when they start.' },
  },
  examples: ['svc errors projects rotate-key 12', 'svc errors projects rotate-key web-shop --restart'],
  async run(ctx) {
    const api = ctx.api();
    const id = await resolveProject(api, ctx.args.project as string, ctx.opts.team);
    const k = await api.post<{ public_key: string; dsn: string; revoked: string[]; links: Link[] }>(`/api/v1/projects/${seg(String(id))}/keys`, { restart: ctx.opts.restart === true });
    ctx.out.result(k, () => {
      ctx.out.line(`New DSN of project ${id}:`);
      ctx.out.line(k.dsn);
      if (k.revoked.length) ctx.out.note(`Revoked: ${k.revoked.join(', ')} (events sent with it are now refused).`);
      if (k.links.length) {
        ctx.out.line();
        ctx.out.table(k.links, LINK_COLUMNS);
        if (k.links.some((l) => l.state === 'stale')) ctx.out.note('Stale links are retried until their service takes the new DSN.');
        if (ctx.opts.restart !== true && k.links.some((l) => l.kind === 'app')) ctx.out.note('Linked apps send the old DSN, now refused, until their next deploy; --restart restarts them.');
      }
    });
  },
});

export const projectsGroup = defineGroup('projects', 'Manage error-tracking projects and their DSNs', [list, create, show, rotateKey]);
