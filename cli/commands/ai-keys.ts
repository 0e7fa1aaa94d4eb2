/** svc ai keys create | list | show | update | delete: gateway keys `sk-svc-…` (/api/v1/keys). */
import { seg } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand, defineGroup } from '../command.ts';
import type { Column } from '../output.ts';
import { teamNames } from './team-names.ts';
import { KEY_OPTIONS, compressionFromOption, describeLimits, limitsFromOptions, logBodiesFromOption, modelsFromOption, responseStoreFromOption, type LimitName } from './ai-key-options.ts';

export interface GatewayKeyView {
  id: string;
  name: string;
  team: string;
  owner: string | null;
  own: boolean;
  hint: string;
  models: string[];
  limits: Partial<Record<LimitName, number>>;
  log_bodies: string;
  compression?: string | null;
  response_store_ttl?: string;
  disabled: boolean;
  created_at: string;
  last_used_at: string | null;
  warnings?: string[];
}

const columns = (teamName: (id: string) => string): Column<GatewayKeyView>[] => [
  { title: 'id', value: (k) => k.id },
  { title: 'name', value: (k) => k.name },
  { title: 'team', value: (k) => teamName(k.team) },
  { title: 'own', value: (k) => k.own },
  { title: 'hint', value: (k) => k.hint },
  { title: 'models', value: (k) => (k.models.length ? k.models.join(',') : '*') },
  { title: 'limits', value: (k) => describeLimits(k.limits) },
  { title: 'bodies', value: (k) => k.log_bodies },
  { title: 'disabled', value: (k) => k.disabled },
  { title: 'last used', value: (k) => k.last_used_at },
];

export function keyFields(k: GatewayKeyView): [string, unknown][] {
  return [
    ['id', k.id], ['name', k.name], ['team', k.team], ['own', k.own], ['hint', k.hint],
    ['models', k.models.length ? k.models.join(', ') : 'every model'],
    ['dollars per month', k.limits.dollars_per_month === undefined ? 'unlimited' : `$${k.limits.dollars_per_month}`],
    ['tokens per month', k.limits.tokens_per_month ?? 'unlimited'],
    ['requests per day', k.limits.requests_per_day ?? 'unlimited'],
    ['requests per minute', k.limits.requests_per_minute ?? 'unlimited'],
    ['log bodies', k.log_bodies], ['compression', k.compression ?? 'inherit'], ['response store', k.response_store_ttl], ['disabled', k.disabled], ['created', k.created_at], ['last used', k.last_used_at],
  ];
}

const create = defineCommand({
  name: 'create',
  summary: 'Create a gateway key; the sk-svc- secret is printed once',
  description: 'Create a gateway key in a team. Units: --budget is dollars per calendar month (UTC), --daily is requests per day. The secret is printed once: store it now.',
  options: {
    name: { type: 'string', value: 'NAME', required: true, description: 'What the key is for, e.g. ci-bot or alice-laptop.' },
    team: { type: 'string', value: 'TEAM', description: 'The team of the key (name or id; default SVC_TEAM).' },
    own: { type: 'boolean', description: 'The key is yours inside the team (visible to you and team admins).' },
    ...KEY_OPTIONS,
  },
  examples: ['svc ai keys create --name ci-bot --team payments --models "claude-*,gpt-4o" --budget 25 --daily 2000', 'OPENAI_API_KEY=$(svc ai keys create --name me --team payments --own --json | jq -r .key)'],
  async run(ctx) {
    const help = 'svc ai keys create';
    const team = ctx.opts.team ?? ctx.env.SVC_TEAM;
    if (!team) throw new CliError('usage', 'Name the team of the key with --team (or set SVC_TEAM).', { helpFor: help });
    const body: Record<string, unknown> = { name: ctx.opts.name };
    if (ctx.opts.own) body.own = true;
    const models = modelsFromOption(ctx.opts.models);
    if (models) body.models = models;
    const limits = limitsFromOptions(ctx.opts, false, help);
    if (limits) body.limits = limits;
    const logBodies = logBodiesFromOption(ctx.opts['log-bodies'], help);
    if (logBodies) body.log_bodies = logBodies;
    const compression = compressionFromOption(ctx.opts.compression, help);
    if (compression !== undefined) body.compression = compression;
    const responseStore = responseStoreFromOption(ctx.opts['response-store'], help);
    if (responseStore !== undefined) body.response_store_ttl = responseStore;
    const k = await ctx.api().post<GatewayKeyView & { key: string }>('/api/v1/keys', body, { 'x-svc-team': team });
    for (const w of k.warnings ?? []) ctx.out.warn(w);
    ctx.out.result(k, () => {
      ctx.out.fields(keyFields(k));
      ctx.out.line();
      ctx.out.line('Key (shown once, store it now):');
      ctx.out.line(k.key);
    });
  },
});

const list = defineCommand({
  name: 'list',
  summary: 'List the gateway keys you can see',
  options: {
    team: { type: 'string', value: 'TEAM', description: 'Only this team (name or id).' },
    own: { type: 'boolean', description: 'Only your own keys.' },
  },
  examples: ['svc ai keys list', 'svc ai keys list --team payments --json'],
  async run(ctx) {
    const api = ctx.api();
    const items = await api.listAll<GatewayKeyView>('/api/v1/keys', { team: ctx.opts.team, own: ctx.opts.own ? 'true' : undefined });
    const teamName = ctx.json || items.length === 0 ? String : await teamNames(api);
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, columns(teamName), 'No gateway keys.'));
  },
});

const show = defineCommand({
  name: 'show',
  summary: 'Show a gateway key (never its secret)',
  args: [{ name: 'id', required: true, description: 'The key id (key_…, from svc ai keys list).' }],
  examples: ['svc ai keys show key_3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const k = await ctx.api().get<GatewayKeyView>(`/api/v1/keys/${seg(ctx.args.id as string)}`);
    ctx.out.result(k, () => ctx.out.fields(keyFields(k)));
  },
});

const update = defineCommand({
  name: 'update',
  summary: 'Change a gateway key: name, models, limits (none removes one), body logging, compression, disabled',
  description: 'Change a gateway key. Limits not named keep their value; give none to remove one (e.g. --budget none).',
  args: [{ name: 'id', required: true, description: 'The key id.' }],
  options: {
    name: { type: 'string', value: 'NAME', description: 'A new name.' },
    ...KEY_OPTIONS,
    disable: { type: 'boolean', description: 'Stop the key working (at once, on every node).' },
    enable: { type: 'boolean', description: 'Let a disabled key work again.' },
  },
  examples: ['svc ai keys update key_3f2a9c0d1e4b5a67 --budget 50 --daily none', 'svc ai keys update key_3f2a9c0d1e4b5a67 --log-bodies 7d', 'svc ai keys update key_3f2a9c0d1e4b5a67 --compression audit-only'],
  async run(ctx) {
    const help = 'svc ai keys update';
    if (ctx.opts.disable && ctx.opts.enable) throw new CliError('usage', 'Give --disable or --enable, not both.', { helpFor: help });
    const path = `/api/v1/keys/${seg(ctx.args.id as string)}`;
    const api = ctx.api();
    const body: Record<string, unknown> = {};
    if (ctx.opts.name !== undefined) body.name = ctx.opts.name;
    const models = modelsFromOption(ctx.opts.models);
    if (models) body.models = models;
    const changed = limitsFromOptions(ctx.opts, true, help);
    // The API replaces the whole limits object: merge the change into the current limits.
    if (changed) body.limits = { ...(await api.get<GatewayKeyView>(path)).limits, ...changed };
    const logBodies = logBodiesFromOption(ctx.opts['log-bodies'], help);
    if (logBodies) body.log_bodies = logBodies;
    const compression = compressionFromOption(ctx.opts.compression, help);
    if (compression !== undefined) body.compression = compression;
    const responseStore = responseStoreFromOption(ctx.opts['response-store'], help);
    if (responseStore !== undefined) body.response_store_ttl = responseStore;
    if (ctx.opts.disable) body.disabled = true;
    if (ctx.opts.enable) body.disabled = false;
    if (Object.keys(body).length === 0) throw new CliError('usage', 'Nothing to change: give at least one option.', { helpFor: help });
    const k = await api.request<GatewayKeyView>('PATCH', path, { body });
    for (const w of k.warnings ?? []) ctx.out.warn(w);
    ctx.out.result(k, () => ctx.out.fields(keyFields(k)));
  },
});

const remove = defineCommand({
  name: 'delete',
  summary: 'Delete a gateway key; it stops working at once on every node',
  args: [{ name: 'id', required: true, description: 'The key id.' }],
  examples: ['svc ai keys delete key_3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const k = await ctx.api().delete<GatewayKeyView>(`/api/v1/keys/${seg(ctx.args.id as string)}`);
    ctx.out.result(k, () => ctx.out.line(`Deleted gateway key ${k.id} (${k.name}).`));
  },
});

export const keysGroup = defineGroup('keys', 'Manage gateway keys (sk-svc-…) and their limits', [create, list, show, update, remove]);
