/** svc webhooks create | list | show | delete | test | deliveries: a team's webhooks (/api/v1/webhooks, docs/webhooks.md). */
import { seg } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand, defineGroup } from '../command.ts';
import type { Column } from '../output.ts';
import { LIMIT_OPTION, maxItems } from './limit-option.ts';
import { teamNames } from './team-names.ts';

interface Webhook {
  id: string;
  team: string;
  url: string;
  events: string[];
  created_by: string | null;
  created_at: string;
  secret?: string;
}

interface Attempt {
  attempt: number;
  status: number | null;
  error: string | null;
  duration_ms: number | null;
  attempted_at: string;
}

interface Delivery {
  id: string;
  event: string;
  kind: string;
  state: string;
  attempt_count: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  attempts: Attempt[];
}

const columns = (teamName: (id: string) => string): Column<Webhook>[] => [
  { title: 'id', value: (w) => w.id },
  { title: 'team', value: (w) => teamName(w.team) },
  { title: 'url', value: (w) => w.url },
  { title: 'events', value: (w) => w.events.join(',') },
  { title: 'created', value: (w) => w.created_at },
];

const fields = (w: Webhook): [string, unknown][] => [['id', w.id], ['team', w.team], ['url', w.url], ['events', w.events.join(', ')], ['created by', w.created_by], ['created', w.created_at]];

const create = defineCommand({
  name: 'create',
  summary: 'Create a webhook (team admins); its signing secret is printed once',
  options: {
    url: { type: 'string', value: 'URL', required: true, description: 'The http or https URL that receives the POSTs.' },
    team: { type: 'string', value: 'TEAM', description: 'The team (name or id; default SVC_TEAM).' },
    events: { type: 'string', value: 'KINDS', description: 'Event kinds, comma-separated, e.g. issue.new,issue.regressed (default * for all).' },
  },
  examples: ['svc webhooks create --team payments --url https://hooks.example.com/svc --events issue.new,issue.regressed'],
  async run(ctx) {
    const team = ctx.opts.team ?? ctx.env.SVC_TEAM;
    if (!team) throw new CliError('usage', 'Name the team of the webhook with --team (or set SVC_TEAM).', { helpFor: 'svc webhooks create' });
    const events = ctx.opts.events?.split(',').map((e) => e.trim()).filter(Boolean);
    const w = await ctx.api().post<Webhook>('/api/v1/webhooks', { url: ctx.opts.url, ...(events?.length ? { events } : {}) }, { 'x-svc-team': team });
    ctx.out.result(w, () => {
      ctx.out.fields([...fields(w), ['secret', w.secret]]);
      ctx.out.note('The secret signs every delivery (docs/webhooks.md); it is shown this once: store it now.');
    });
  },
});

const list = defineCommand({
  name: 'list',
  summary: 'List the webhooks of the teams you can read',
  options: { team: { type: 'string', value: 'TEAM', description: 'Only this team (name or id).' } },
  examples: ['svc webhooks list', 'svc webhooks list --team payments --json'],
  async run(ctx) {
    const api = ctx.api();
    const items = await api.listAll<Webhook>('/api/v1/webhooks', { team: ctx.opts.team });
    const teamName = ctx.json || items.length === 0 ? String : await teamNames(api);
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, columns(teamName), 'No webhooks. Create one with "svc webhooks create --team TEAM --url URL".'));
  },
});

const ID_ARG = [{ name: 'id', required: true, description: 'The webhook id (from svc webhooks list).' }];

const show = defineCommand({
  name: 'show',
  summary: 'Show a webhook',
  args: ID_ARG,
  examples: ['svc webhooks show 3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const w = await ctx.api().get<Webhook>(`/api/v1/webhooks/${seg(ctx.args.id as string)}`);
    ctx.out.result(w, () => ctx.out.fields(fields(w)));
  },
});

const remove = defineCommand({
  name: 'delete',
  summary: 'Delete a webhook and its deliveries (team admins)',
  args: ID_ARG,
  examples: ['svc webhooks delete 3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const id = ctx.args.id as string;
    const answer = await ctx.api().delete<unknown>(`/api/v1/webhooks/${seg(id)}`);
    ctx.out.result(answer ?? { id, deleted: true }, () => ctx.out.line(`Webhook ${id} deleted.`));
  },
});

const test = defineCommand({
  name: 'test',
  summary: 'Send a webhook.test event to a webhook (team admins)',
  args: ID_ARG,
  examples: ['svc webhooks test 3f2a9c0d1e4b5a67 && svc webhooks deliveries 3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const t = await ctx.api().post<{ event: string; kind: string; webhook: string }>(`/api/v1/webhooks/${seg(ctx.args.id as string)}/test`);
    ctx.out.result(t, () => ctx.out.line(`Queued ${t.kind} event ${t.event} for webhook ${t.webhook}; see it with "svc webhooks deliveries ${t.webhook}".`));
  },
});

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { title: 'id', value: (d) => d.id },
  { title: 'event', value: (d) => d.kind },
  { title: 'state', value: (d) => d.state },
  { title: 'attempts', align: 'right', value: (d) => d.attempt_count },
  { title: 'last answer', value: (d) => { const a = d.attempts.at(-1); return a ? a.error ?? `HTTP ${a.status}` : null; } },
  { title: 'next try', value: (d) => d.next_attempt_at },
  { title: 'delivered', value: (d) => d.delivered_at },
  { title: 'created', value: (d) => d.created_at },
];

const deliveries = defineCommand({
  name: 'deliveries',
  summary: "List a webhook's deliveries, newest first, with their attempts",
  args: ID_ARG,
  options: {
    state: { type: 'string', value: 'STATE', description: 'Only deliveries in this state: pending, delivered or failed.' },
    limit: LIMIT_OPTION('deliveries'),
  },
  examples: ['svc webhooks deliveries 3f2a9c0d1e4b5a67 --state failed'],
  async run(ctx) {
    const max = maxItems(ctx.opts.limit, 'svc webhooks deliveries');
    const items = await ctx.api().listAll<Delivery>(`/api/v1/webhooks/${seg(ctx.args.id as string)}/deliveries`, { state: ctx.opts.state }, max);
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, DELIVERY_COLUMNS, 'No deliveries yet.'));
  },
});

export const webhooksGroup = defineGroup('webhooks', 'Webhooks: signed POSTs for new issues, regressions, spikes, budget alerts', [create, list, show, remove, test, deliveries]);
