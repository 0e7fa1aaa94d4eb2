/**
 * svc ai compression: what conversation compression saved (`on`) and would have saved (`audit-only`) over the last N
 * days, per model, key or team (GET /api/v1/compression/report), with each group's cache breaks, what they cost and
 * the net saving: the figure to judge `on` by in cached sessions (docs/compression.md).
 */
import { CliError } from '../cli-error.ts';
import { defineCommand } from '../command.ts';
import { DAYS_OPTION, days } from './days-option.ts';
import { thousands, type Column } from '../output.ts';

interface Item {
  group: string;
  mode: 'on' | 'audit-only';
  calls: number;
  tokens_before: number;
  tokens_saved: number;
  dollars_saved: number;
  dollars_saved_uncached: number;
  cache_breaks: number;
  dollars_cache_rewrites: number;
  dollars_saved_net: number;
}

interface Report {
  days: number;
  group_by: string;
  items: Item[];
}

const BY = ['model', 'key', 'team'];
/** Dollars to the cent, or to a hundredth of a cent below a dollar; a loss with a minus sign. */
const usd = (v: number) => `${v < 0 ? '−' : ''}$${Math.abs(v).toFixed(Math.abs(v) < 1 ? 4 : 2)}`;

const COLUMNS = (by: string): Column<Item>[] => [
  { title: by, value: (i) => i.group },
  { title: 'mode', value: (i) => i.mode },
  { title: 'calls', align: 'right', value: (i) => thousands(i.calls) },
  { title: 'tokens before', align: 'right', dropOrder: 3, value: (i) => thousands(i.tokens_before) },
  { title: 'saved', align: 'right', value: (i) => `${thousands(i.tokens_saved)}${i.tokens_before > 0 ? ` (${Math.round((i.tokens_saved / i.tokens_before) * 100)} %)` : ''}` },
  { title: 'saved, cached', align: 'right', value: (i) => usd(i.dollars_saved) },
  { title: 'uncached', align: 'right', dropOrder: 4, value: (i) => usd(i.dollars_saved_uncached) },
  { title: 'breaks', align: 'right', dropOrder: 2, value: (i) => thousands(i.cache_breaks) },
  { title: 'break cost', align: 'right', dropOrder: 1, value: (i) => usd(i.dollars_cache_rewrites) },
  { title: 'net', align: 'right', value: (i) => `${usd(i.dollars_saved_net)}${i.dollars_saved_net < 0 ? ' (dearer)' : ''}` },
];

export const compression = defineCommand({
  name: 'compression',
  summary: 'What compression saved and would save, its cache breaks and the net, by model, key or team',
  options: {
    days: DAYS_OPTION('The last N days, 1 to 366 (default 30).'),
    by: { type: 'string', value: 'model|key|team', description: 'Group by model (the default), key or team.' },
  },
  examples: ['svc ai compression', 'svc ai compression --days 7 --by key --json'],
  async run(ctx) {
    const period = days(ctx.opts.days, 30, 'svc ai compression');
    const by = ctx.opts.by ?? 'model';
    if (!BY.includes(by)) throw new CliError('usage', `--by must be model, key or team (got "${by}").`, { helpFor: 'svc ai compression' });
    const r = await ctx.api().get<Report>('/api/v1/compression/report', { days: period, group_by: by });
    ctx.out.result(r, () => {
      ctx.out.line(`Compression over the last ${r.days === 1 ? 'day' : `${r.days} days`}, by ${r.group_by}`);
      ctx.out.table(r.items, COLUMNS(r.group_by), 'Nothing compressed in this period: set a mode with svc teams compression or svc ai keys update --compression, or see docs/compression.md.');
      if (r.items.length > 0) {
        ctx.out.note('Tokens are estimates. "saved, cached" prices the saved tokens at the cache-read price, "uncached" as fresh input; each break makes the provider write the rewritten history again, and "net" is what is left once they are paid.');
      }
    });
  },
});
