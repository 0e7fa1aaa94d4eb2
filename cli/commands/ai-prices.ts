/** svc ai prices list | set | delete: what the gateway charges per model, USD per million tokens (/api/v1/prices). */
import { seg } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand, defineGroup } from '../command.ts';
import type { Column, Output } from '../output.ts';

interface PerMtok {
  input_per_mtok: number;
  output_per_mtok: number;
  cache_read_per_mtok: number;
  cache_write_per_mtok: number;
}

interface Price {
  model: string;
  list: PerMtok | null;
  override: (PerMtok & { updated_at: string }) | null;
  effective: (PerMtok & { source: string; matched: string }) | null;
  warnings?: string[];
}

/** Dollars with at least two decimals and up to six (prices per million tokens go below a cent). */
const usd = (n: number | undefined) => (n === undefined ? null : `$${n.toFixed(Math.min(6, Math.max(2, (String(n).split('.')[1] ?? '').length)))}`);

const COLUMNS: Column<Price>[] = [
  { title: 'model', value: (p) => p.model },
  { title: 'input', align: 'right', value: (p) => usd(p.effective?.input_per_mtok) },
  { title: 'output', align: 'right', value: (p) => usd(p.effective?.output_per_mtok) },
  { title: 'cache read', align: 'right', value: (p) => usd(p.effective?.cache_read_per_mtok) },
  { title: 'cache write', align: 'right', value: (p) => usd(p.effective?.cache_write_per_mtok) },
  { title: 'source', value: (p) => (p.effective ? (p.effective.matched === p.model ? p.effective.source : `${p.effective.source} (${p.effective.matched})`) : 'unpriced') },
];

function printPrices(out: Output, items: Price[]): void {
  out.table(items, COLUMNS, 'No prices.');
  if (items.length) out.note('USD per million tokens.');
}

const list = defineCommand({
  name: 'list',
  summary: 'List prices (list price, override, effective), USD per million tokens',
  options: { model: { type: 'string', value: 'MODEL', description: 'Show the one price that applies to this model id.' } },
  examples: ['svc ai prices list', 'svc ai prices list --model gpt-4o-2024-08-06'],
  async run(ctx) {
    const api = ctx.api();
    const items = ctx.opts.model === undefined ? await api.listAll<Price>('/api/v1/prices') : (await api.get<{ items: Price[] }>('/api/v1/prices', { model: ctx.opts.model })).items;
    ctx.out.result({ items, next_cursor: null }, () => printPrices(ctx.out, items));
  },
});

function dollars(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\$?\d{1,5}(\.\d{1,6})?$/.test(raw)) throw new CliError('usage', `--${flag} must be dollars per million tokens, such as 2.5 or 0.15 (got "${raw}").`, { helpFor: 'svc ai prices set' });
  return Number(raw.replace(/^\$/, ''));
}

const PRICE_OPTIONS = {
  input: { type: 'string', value: 'USD', required: true, description: 'Input tokens, dollars per million.' },
  output: { type: 'string', value: 'USD', required: true, description: 'Output tokens, dollars per million.' },
  'cache-read': { type: 'string', value: 'USD', description: 'Cache-read tokens (default: the list price, else the input price).' },
  'cache-write': { type: 'string', value: 'USD', description: 'Cache-write tokens (default: the list price, else the input price).' },
} as const;

const set = defineCommand({
  name: 'set',
  summary: 'Override the price of a model or * pattern (superusers)',
  args: [{ name: 'model', required: true, description: 'A model id or a * pattern, e.g. my-org/* .' }],
  options: PRICE_OPTIONS,
  examples: ['svc ai prices set gpt-4o --input 2.5 --output 10', 'svc ai prices set "local/*" --input 0 --output 0'],
  async run(ctx) {
    const o = ctx.opts;
    const body = {
      input_per_mtok: dollars('input', o.input),
      output_per_mtok: dollars('output', o.output),
      cache_read_per_mtok: dollars('cache-read', o['cache-read']),
      cache_write_per_mtok: dollars('cache-write', o['cache-write']),
    };
    const p = await ctx.api().put<Price>(`/api/v1/prices/${seg(ctx.args.model as string)}`, body);
    for (const w of p.warnings ?? []) ctx.out.warn(w);
    ctx.out.result(p, () => printPrices(ctx.out, [p]));
  },
});

const remove = defineCommand({
  name: 'delete',
  summary: "Remove a model's price override (superusers); the list price applies again",
  args: [{ name: 'model', required: true, description: 'The model id or pattern of the override.' }],
  examples: ['svc ai prices delete gpt-4o'],
  async run(ctx) {
    const p = await ctx.api().delete<Price>(`/api/v1/prices/${seg(ctx.args.model as string)}`);
    ctx.out.result(p, () => ctx.out.line(`Override of ${p.model} removed; ${p.effective ? `it costs $${p.effective.input_per_mtok} in, $${p.effective.output_per_mtok} out per million tokens (${p.effective.source})` : 'it has no price now'}.`));
  },
});

export const pricesGroup = defineGroup('prices', 'Model prices, USD per million tokens', [list, set, remove]);
