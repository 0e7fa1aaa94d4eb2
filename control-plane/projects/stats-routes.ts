/**
 * GET /api/v1/projects/{id}/stats: what the ingest did with a project's items (accepted, filtered, rate-limited,
 * invalid, discarded by the SDK), as totals and a zero-filled time series. stats-params.ts reads the query,
 * stats-service.ts holds the rules.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { principal } from '../auth-hook.ts';
import { parseStatsParams, STATS_QUERY, type StatsInput } from './stats-params.ts';
import { projectStats } from './stats-service.ts';
import { PROJECT_STATS } from './errors-schemas.ts';

const ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;

export function statsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/v1/projects/:id/stats', {
    schema: {
      tags: ['projects'],
      summary: "A project's ingest outcomes (accepted, filtered, rate_limited, invalid, client_discard): totals and a series by hour or day",
      params: ID,
      querystring: { type: 'object', properties: STATS_QUERY },
      response: { 200: PROJECT_STATS },
    },
  }, async (req) => {
    const p = principal(req);
    return projectStats(ctx, p, (req.params as { id: string }).id, parseStatsParams(req.query as StatsInput, ctx.clock.now()));
  });
}
