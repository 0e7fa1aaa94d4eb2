/**
 * GET /api/v1/usage?days=N&group_by=model,key,account,team&team=&key=&interval=day|hour: gateway usage of the
 * teams the caller can read (usage-query.ts: rollups for whole rolled-up hours and days, raw records for the
 * rest). The window is the last N calendar days in UTC, today included, up to now. A team member sees the team's
 * keys and their own keys; team admins and superusers see every key. Each group and the totals carry what
 * compression saved (from the usage records' tokens before and after compression) and would have saved in
 * audit-only (compression-savings.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { requireTeam } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { svcError } from '../../core/errors.ts';
import { principal } from '../auth-hook.ts';
import { optionalTeamOfRequest } from '../team-of-request.ts';
import { canSeeKey } from '../ai/key-service.ts';
import { GROUPS, namesOf, readUsage, type Group, type GroupRow, type UsageFilter } from './usage-query.ts';
import { USAGE_REPORT } from './usage-schemas.ts';
import { readPriceOverrides } from '../../core/ai/price-overrides.ts';
import { addOnSavings, groupKey, noSavings, queryAuditSavings } from './compression-savings.ts';

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;
const MAX_HOURLY_DAYS = 31;
const MAX_GROUPS = 1000;
const ADMIN = new Set(['admin', 'owner']);

function parseDays(v: string | undefined): number {
  if (v === undefined || v === '') return 7;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > MAX_DAYS) throw svcError('validation_failed', `days must be a whole number from 1 to ${MAX_DAYS}.`, { field: 'days' });
  return n;
}

function parseGroups(v: string | undefined): Group[] {
  if (v === undefined || v === '') return ['model'];
  const out: Group[] = [];
  for (const part of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!(GROUPS as readonly string[]).includes(part)) throw svcError('validation_failed', `group_by takes a comma-separated list of ${GROUPS.join(', ')} (got "${part}").`, { field: 'group_by' });
    if (!out.includes(part as Group)) out.push(part as Group);
  }
  return out;
}

const metrics = (r: Pick<GroupRow, 'calls' | 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens' | 'cost_usd' | 'errors'>) => ({
  calls: r.calls,
  input_tokens: r.input_tokens,
  output_tokens: r.output_tokens,
  cache_read_tokens: r.cache_read_tokens,
  cache_write_tokens: r.cache_write_tokens,
  cost_usd: Math.round(r.cost_usd * 1e6) / 1e6,
  errors: r.errors,
});
const latency = (r: GroupRow) => ({ p50: r.p50 === null ? null : Math.round(r.p50), p95: r.p95 === null ? null : Math.round(r.p95) });

export function usageRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/v1/usage', {
    schema: {
      tags: ['ai'],
      summary: 'Gateway usage per model, key, account or team: calls, tokens, cost, errors, p50/p95 latency, and a time series',
      querystring: {
        type: 'object',
        properties: {
          days: { type: 'string', description: `The last N calendar days (UTC), today included; 1 to ${MAX_DAYS}, default 7.` },
          group_by: { type: 'string', description: 'Comma-separated: model, key, account, team (default model).' },
          interval: { type: 'string', enum: ['day', 'hour'], description: `Time-series bucket (default day; hour for at most ${MAX_HOURLY_DAYS} days).` },
          team: { type: 'string', description: 'Only this team (id or name; or the X-Svc-Team header).' },
          key: { type: 'string', description: 'Only this gateway key (id).' },
        },
      },
      response: { 200: USAGE_REPORT },
    },
  }, async (req) => {
    const p = principal(req);
    const q = req.query as { days?: string; group_by?: string; interval?: 'day' | 'hour'; key?: string };
    const days = parseDays(q.days);
    const groups = parseGroups(q.group_by);
    const interval = q.interval ?? 'day';
    if (interval === 'hour' && days > MAX_HOURLY_DAYS) throw svcError('validation_failed', `interval=hour covers at most ${MAX_HOURLY_DAYS} days.`, { field: 'interval' });
    const teamId = await optionalTeamOfRequest(ctx.db, req);
    if (teamId) requireTeam(p, teamId, 'read');
    if (q.key) {
      const k = await ctx.db.query<{ team_id: string; owner_user_id: string | null }>('SELECT team_id, owner_user_id FROM gateway_keys WHERE id = $1', [q.key]);
      if (!k.rows[0] || !canSeeKey(p, k.rows[0])) throw svcError('not_found', `Gateway key ${q.key} was not found.`);
    }
    const now = ctx.clock.now();
    const startOfToday = Math.floor(now / DAY_MS) * DAY_MS;
    const from = new Date(startOfToday - (days - 1) * DAY_MS);
    const f: UsageFilter = {
      from, to: new Date(now + 1),
      teams: p.isSuperuser ? null : [...p.teams.keys()],
      adminTeams: [...p.teams].filter(([, role]) => ADMIN.has(role)).map(([id]) => id),
      userId: p.userId, teamId, keyId: q.key,
    };
    const [{ groups: rows, total, series, compressed }, overrides] = await Promise.all([readUsage(ctx.db, f, groups, interval, MAX_GROUPS), readPriceOverrides(ctx.db)]);
    const savings = await queryAuditSavings(ctx.db, f, groups, overrides);
    addOnSavings(savings, groups, compressed, overrides);
    const truncated = rows.length > MAX_GROUPS;
    const page = rows.slice(0, MAX_GROUPS);
    const names = new Map<Group, Map<string, string>>();
    for (const [i, g] of groups.entries()) {
      if (g === 'model') continue;
      const ids = [...new Set(page.map((r) => (r as unknown as Record<string, string | null>)[`g${i}`]).filter((x): x is string => !!x))];
      names.set(g, await namesOf(ctx.db, g, ids));
    }
    const items = page.map((r) => {
      const out: Record<string, unknown> = {};
      const values: Array<string | null> = [];
      for (const [i, g] of groups.entries()) {
        const v = (r as unknown as Record<string, string | null>)[`g${i}`] ?? null;
        values.push(v);
        out[g] = v;
        if (g !== 'model') out[`${g}_name`] = v === null ? null : (names.get(g)?.get(v) ?? null);
      }
      return { ...out, ...metrics(r), latency_ms: latency(r), compression: savings.get(groupKey(values)) ?? noSavings() };
    });
    const step = interval === 'day' ? DAY_MS : 3_600_000;
    const byBucket = new Map(series.map((s) => [s.bucket_ms, s]));
    const points = [];
    for (let t = interval === 'day' ? from.getTime() : Math.floor(from.getTime() / step) * step; t <= now; t += step) {
      const s = byBucket.get(t);
      points.push({ at: rfc3339(t), ...(s ? metrics(s) : metrics({ calls: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0, errors: 0 })) });
    }
    return {
      from: rfc3339(from), to: rfc3339(now), days, interval, group_by: groups,
      groups: items, truncated,
      totals: { ...metrics(total), latency_ms: latency(total), compression: savings.get('') ?? noSavings() },
      series: points,
    };
  });
}
