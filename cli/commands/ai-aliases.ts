/** svc ai aliases list | show | set | delete: model aliases, a name tried as a list of models in order (/api/v1/aliases). */
import { seg } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand, defineGroup } from '../command.ts';
import type { Column } from '../output.ts';

interface Alias {
  name: string;
  models: string[];
  created_at: string;
  updated_at: string;
  warnings?: string[];
}

const COLUMNS: Column<Alias>[] = [
  { title: 'name', value: (a) => a.name },
  { title: 'models (in order)', value: (a) => a.models.join(' → ') },
  { title: 'updated', value: (a) => a.updated_at },
];

const fields = (a: Alias): [string, unknown][] => [['name', a.name], ['models', a.models.join(' → ')], ['created', a.created_at], ['updated', a.updated_at]];

const list = defineCommand({
  name: 'list',
  summary: 'List model aliases',
  examples: ['svc ai aliases list'],
  async run(ctx) {
    const items = await ctx.api().listAll<Alias>('/api/v1/aliases');
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, COLUMNS, 'No aliases. Create one with "svc ai aliases set NAME --models a,b".'));
  },
});

const show = defineCommand({
  name: 'show',
  summary: 'Show one alias',
  args: [{ name: 'name', required: true, description: 'The alias name.' }],
  examples: ['svc ai aliases show fast'],
  async run(ctx) {
    const a = await ctx.api().get<Alias>(`/api/v1/aliases/${seg(ctx.args.name as string)}`);
    ctx.out.result(a, () => ctx.out.fields(fields(a)));
  },
});

const set = defineCommand({
  name: 'set',
  summary: 'Create or replace an alias (superusers)',
  description: 'Make NAME expand to 1 to 10 models, tried in order while one answers 429, 404 or 5xx. Aliases do not nest.',
  args: [{ name: 'name', required: true, description: 'The alias name clients send as the model.' }],
  options: { models: { type: 'string', value: 'a,b,c', required: true, description: 'Model ids in the order they are tried, comma-separated.' } },
  examples: ['svc ai aliases set fast --models gpt-4o-mini,claude-haiku-4-5'],
  async run(ctx) {
    const models = (ctx.opts.models as string).split(',').map((m) => m.trim()).filter(Boolean);
    if (models.length === 0) throw new CliError('usage', '--models needs at least one model id, e.g. --models gpt-4o-mini,claude-haiku-4-5.', { helpFor: 'svc ai aliases set' });
    const a = await ctx.api().put<Alias>(`/api/v1/aliases/${seg(ctx.args.name as string)}`, { models });
    for (const w of a.warnings ?? []) ctx.out.warn(w);
    ctx.out.result(a, () => ctx.out.line(`Alias ${a.name} → ${a.models.join(' → ')}.`));
  },
});

const remove = defineCommand({
  name: 'delete',
  summary: 'Delete an alias (superusers)',
  args: [{ name: 'name', required: true, description: 'The alias name.' }],
  examples: ['svc ai aliases delete fast'],
  async run(ctx) {
    const a = await ctx.api().delete<Alias>(`/api/v1/aliases/${seg(ctx.args.name as string)}`);
    ctx.out.result(a, () => ctx.out.line(`Alias ${a.name} deleted.`));
  },
});

export const aliasesGroup = defineGroup('aliases', 'Model aliases: one name, several models tried in order', [list, show, set, remove]);
