/**
 * svc ai usage: calls, tokens and cost by model and key over the last N days (GET /api/v1/usage), as a table; with
 * compression in use, the input tokens before and after it and what it saved, per group and in total.
 */
import { defineCommand } from '../command.ts';
import { DAYS_OPTION, days } from './days-option.ts';
import { thousands, type Column } from '../output.ts';

interface UsageGroup {
  model?: string;
  key?: string;
  key_name?: string | null;
  account_name?: string | null;
  team_name?: string | null;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  errors: number;
  latency_ms: { p50: number | null; p95: number | null };
  compression?: { on: Savings; audit_only: Savings };
}

interface Savings {
  calls: number;
  tokens_before: number;
  tokens_after: number;
  tokens_saved: number;
  dollars_saved: number;
  dollars_saved_uncached: number;
}

interface Usage {
  from: string;
  to: string;
  group_by: string[];
  groups: UsageGroup[];
  truncated: boolean;
  totals: UsageGroup;
}


export const usage = defineCommand({
  name: 'usage',
  summary: 'Calls, tokens and cost by model and key over the last N days',
  options: {
    days: DAYS_OPTION('The last N calendar days (UTC), today included (default 7).'),
    by: { type: 'string', value: 'model,key', description: 'Group by any of model, key, account, team (default model,key).' },
    team: { type: 'string', value: 'TEAM', description: 'Only this team (name or id).' },
    key: { type: 'string', value: 'KEY_ID', description: 'Only this gateway key.' },
  },
  examples: ['svc ai usage --days 30', 'svc ai usage --days 1 --by model --team payments --json'],
  async run(ctx) {
    const u = await ctx.api().get<Usage>('/api/v1/usage', { days: days(ctx.opts.days, 7, 'svc ai usage'), group_by: ctx.opts.by ?? 'model,key', team: ctx.opts.team, key: ctx.opts.key });
    ctx.out.result(u, () => {
      const cols: Column<UsageGroup>[] = [];
      if (u.group_by.includes('model')) cols.push({ title: 'model', value: (g) => g.model });
      if (u.group_by.includes('key')) cols.push({ title: 'key', value: (g) => g.key_name ?? g.key });
      if (u.group_by.includes('account')) cols.push({ title: 'account', value: (g) => g.account_name });
      if (u.group_by.includes('team')) cols.push({ title: 'team', value: (g) => g.team_name });
      cols.push(
        { title: 'calls', align: 'right', value: (g) => thousands(g.calls) },
        { title: 'input', align: 'right', value: (g) => thousands(g.input_tokens) },
        { title: 'output', align: 'right', dropOrder: 3, value: (g) => thousands(g.output_tokens) },
        { title: 'cache r/w', align: 'right', dropOrder: 6, value: (g) => `${thousands(g.cache_read_tokens)}/${thousands(g.cache_write_tokens)}` },
        { title: 'cost', align: 'right', value: (g) => `$${g.cost_usd.toFixed(4)}` },
        { title: 'errors', align: 'right', dropOrder: 5, value: (g) => thousands(g.errors) },
        { title: 'p50 ms', align: 'right', dropOrder: 7, value: (g) => g.latency_ms.p50 },
        { title: 'p95 ms', align: 'right', dropOrder: 8, value: (g) => g.latency_ms.p95 },
      );
      const pct = (s: Savings) => (s.tokens_before > 0 ? ` (${Math.round((s.tokens_saved / s.tokens_before) * 100)} %)` : '');
      // Compression columns only where something was compressed: calls in `on`, their input before → after, saved.
      // On a narrow terminal the details go first (dropOrder), the names, calls, input, cost and saving stay.
      if ((u.totals.compression?.on.calls ?? 0) > 0) {
        const on = (g: UsageGroup) => g.compression?.on;
        cols.push(
          { title: 'compressed', align: 'right', dropOrder: 4, value: (g) => thousands(on(g)?.calls ?? 0) },
          { title: 'before → after', align: 'right', dropOrder: 9, value: (g) => (on(g)?.calls ? `${thousands(on(g)!.tokens_before)} → ${thousands(on(g)!.tokens_after)}` : '') },
          { title: 'saved', align: 'right', value: (g) => (on(g)?.calls ? `${thousands(on(g)!.tokens_saved)}${pct(on(g)!)}` : '') },
        );
      }
      ctx.out.line(`Usage from ${u.from} to ${u.to}`);
      ctx.out.table(u.groups, cols, 'No calls in this period.');
      const t = u.totals;
      ctx.out.line(`Total: ${count(t.calls, 'call')}, ${count(t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens, 'token')}, $${t.cost_usd.toFixed(4)}, ${count(t.errors, 'error')}`);
      const saved = (s: Savings) => `${thousands(s.tokens_saved)} input tokens${pct(s)} over ${thousands(s.calls)} calls (${thousands(s.tokens_before)} → ${thousands(s.tokens_after)}), $${s.dollars_saved.toFixed(4)} to $${s.dollars_saved_uncached.toFixed(4)}`;
      const c = t.compression;
      if (c && c.on.calls > 0) ctx.out.line(`Compression saved: ${saved(c.on)}`);
      if (c && c.audit_only.calls > 0) ctx.out.line(`Compression would have saved (audit-only): ${saved(c.audit_only)}`);
      if (u.truncated) ctx.out.note('Only the 1000 most costly groups are shown.');
    });
  },
});

/** A count with its noun, singular for exactly one ("1 error", "2 errors"). */
function count(v: number, noun: string): string {
  return `${thousands(v)} ${noun}${v === 1 ? '' : 's'}`;
}
