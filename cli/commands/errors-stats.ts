/**
 * svc errors stats <project> [--since T] [--until T] [--interval hour|day] [--group-by outcome,reason,category]
 * [--outcome …] [--category …]: what the ingest did with a project's items (GET /api/v1/projects/{id}/stats),
 * as a table of totals, then one row per bucket with a column per group.
 */
import { defineCommand } from '../command.ts';
import type { Column } from '../output.ts';
import { resolveProject } from './errors-projects.ts';

type Group = 'outcome' | 'reason' | 'category';
type Entry = Partial<Record<Group, string | null>> & { quantity: number };

interface Stats {
  project: number;
  since: string;
  until: string;
  interval: string;
  group_by: Group[];
  totals: Entry[];
  series: Array<{ at: string; groups: Entry[] }>;
}

/** A group's name in a column title: its values joined by "/" ("-" for the empty reason of accepted items). */
const label = (e: Entry, groupBy: readonly Group[]) => groupBy.map((g) => e[g] ?? '-').join('/');

export const statsCommand = defineCommand({
  name: 'stats',
  summary: "Show how many of a project's events were accepted, filtered, rate-limited, invalid or discarded",
  args: [{ name: 'project', required: true, description: 'Project id or slug.' }],
  options: {
    team: { type: 'string', value: 'TEAM', description: 'The team, when several have a project with this slug.' },
    since: { type: 'string', value: 'TIME', description: 'Start, an ISO 8601 time or date (default: 24 hours before --until).' },
    until: { type: 'string', value: 'TIME', description: 'End, an ISO 8601 time or date (default: now); at most 90 days after --since.' },
    interval: { type: 'string', value: 'hour|day', description: 'One row per hour (default) or per day (UTC).' },
    'group-by': { type: 'string', value: 'GROUPS', description: 'Comma-separated: outcome (default), reason, category.' },
    outcome: { type: 'string', value: 'OUTCOMES', description: 'Only these: accepted, filtered, rate_limited, invalid, client_discard (comma-separated).' },
    category: { type: 'string', value: 'CATEGORIES', description: 'Only these data categories, e.g. error, attachment, session (comma-separated).' },
  },
  examples: ['svc errors stats web-shop', 'svc errors stats web-shop --since 2026-01-01 --until 2026-01-15 --interval day', 'svc errors stats 12 --group-by outcome,reason --outcome rate_limited,invalid --json'],
  async run(ctx) {
    const api = ctx.api();
    const id = await resolveProject(api, ctx.args.project as string, ctx.opts.team);
    const o = ctx.opts;
    const stats = await api.get<Stats>(`/api/v1/projects/${id}/stats`, {
      since: o.since, until: o.until, interval: o.interval, group_by: o['group-by'], outcome: o.outcome, category: o.category,
    });
    ctx.out.result(stats, () => {
      const g = stats.group_by;
      ctx.out.line(`Project ${stats.project}, ${stats.since} to ${stats.until}, by ${stats.interval}`);
      ctx.out.line();
      const totalColumns: Column<Entry>[] = [...g.map((k) => ({ title: k, value: (e: Entry) => e[k] })), { title: 'quantity', align: 'right', value: (e: Entry) => e.quantity }];
      ctx.out.table(stats.totals, totalColumns, 'No outcomes in this range.');
      if (stats.totals.length === 0 || stats.series.length === 0) return;
      ctx.out.line();
      const seriesColumns: Column<Stats['series'][number]>[] = [
        { title: 'at', value: (b) => b.at },
        ...stats.totals.map((t, i) => ({ title: label(t, g), align: 'right' as const, value: (b: Stats['series'][number]) => b.groups[i]?.quantity ?? 0 })),
      ];
      ctx.out.table(stats.series, seriesColumns);
    });
  },
});
