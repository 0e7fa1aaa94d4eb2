/**
 * GET /api/v1/compression/report?days=N&group_by=key|model|team (issue 13 point 4): what compression saved (`on`)
 * and would have saved (`audit-only`) over the last N days, from compression_records, for the teams the caller can
 * read (superusers: every team).
 *
 * Dollars: the history that compression removes is mostly what a cached session would read from the prompt cache,
 * so `dollars_saved` prices the saved tokens at the model's cache-read price; `dollars_saved_uncached` prices them as
 * fresh input (for a provider or a session without a cache). `cache_breaks` counts the rewrites of an already-sent
 * history (a change of the compressor's level within one session), each of which makes the provider write the
 * rewritten part to its cache again instead of reading it: `tokens_rewritten` sums those parts (the history already
 * sent from the step's first rewritten turn on, as compressed: compressor/frontier.ts `stepRewritten`),
 * `dollars_cache_rewrites` prices them at the cache write less the cache read, and `dollars_saved_net` is what is
 * left of `dollars_saved` once they are paid: the figure to judge `on` by in a cached session (negative where
 * compression made a session dearer; within 1 % of the exact replay on the recorded sessions,
 * bench/compression/recorded-sessions.test.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { readableTeams } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { readPriceOverrides } from '../../core/ai/price-overrides.ts';
import { principal } from '../auth-hook.ts';
import { COMPRESSION_REPORT } from './compression-schemas.ts';
import { addRewrites, addSavings, type Rewrites, type Savings } from '../usage/compression-savings.ts';

const GROUPS = { key: 'key_id', model: 'model', team: 'team_id' } as const;
type GroupBy = keyof typeof GROUPS;

interface Row {
  grp: string;
  model: string;
  mode: 'on' | 'audit-only';
  calls: number;
  before: string;
  after: string;
  breaks: number;
  rewritten: string;
}

interface Item extends Savings, Rewrites {
  group: string;
  mode: 'on' | 'audit-only';
}

export function compressionReportRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/v1/compression/report', {
    schema: {
      tags: ['ai'],
      summary: 'Tokens and dollars saved by compression (on) and that it would save (audit-only), per key, model or team',
      querystring: {
        type: 'object',
        properties: {
          days: { type: 'string', pattern: '^[0-9]{1,3}$', description: 'The last N days, 1 to 366 (default 30).' },
          group_by: { type: 'string', enum: Object.keys(GROUPS), default: 'model' },
        },
      },
      response: { 200: COMPRESSION_REPORT },
    },
  }, async (req) => {
    const teams = readableTeams(principal(req));
    const q = req.query as { days?: string; group_by: GroupBy };
    const days = q.days === undefined ? 30 : Number(q.days);
    if (days < 1 || days > 366) throw svcError('validation_failed', 'days must be between 1 and 366.', { field: 'days' });
    const params: unknown[] = [new Date(ctx.clock.now() - days * 86_400_000)];
    const visible = teams === null ? '' : `AND team_id = ANY($${params.push(teams)})`;
    const r = await ctx.db.query<Row>(
      `WITH r AS (
         SELECT key_id, team_id, model, mode, tokens_before, tokens_after,
                CASE WHEN session IS NOT NULL AND lag(level) OVER w IS NOT NULL AND level <> lag(level) OVER w THEN 1 ELSE 0 END AS brk,
                rewrite_tokens
           FROM compression_records WHERE at >= $1 ${visible}
         WINDOW w AS (PARTITION BY session, mode ORDER BY at, record_id))
       SELECT ${GROUPS[q.group_by]} AS grp, model, mode, count(*)::int AS calls, sum(tokens_before) AS before, sum(tokens_after) AS after,
              sum(brk)::int AS breaks, sum(CASE WHEN brk = 1 THEN coalesce(rewrite_tokens, 0) ELSE 0 END) AS rewritten
         FROM r GROUP BY 1, 2, 3`,
      params,
    );
    const overrides = await readPriceOverrides(ctx.db);
    const items = new Map<string, Item>();
    for (const row of r.rows) {
      const id = `${row.grp}\u0000${row.mode}`;
      const it = items.get(id) ?? {
        group: row.grp, mode: row.mode, calls: 0, tokens_before: 0, tokens_after: 0, tokens_saved: 0, dollars_saved: 0, dollars_saved_uncached: 0,
        cache_breaks: 0, tokens_rewritten: 0, dollars_cache_rewrites: 0, dollars_saved_net: 0,
      };
      addSavings(it, row.model, row.calls, Number(row.before), Number(row.after), overrides);
      addRewrites(it, row.model, row.breaks, Number(row.rewritten), overrides);
      items.set(id, it);
    }
    const list = [...items.values()].sort((a, b) => b.tokens_saved - a.tokens_saved || a.group.localeCompare(b.group));
    return { days, group_by: q.group_by, estimated: true, items: list };
  });
}
