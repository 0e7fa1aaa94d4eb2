/** Search provider: webhooks of the teams the caller can read, by URL or id. */
import { readableTeams } from '../../core/auth/principal.ts';
import { containsPattern, resourceUrl, type SearchProvider } from './search-registry.ts';

export const webhookSearch: SearchProvider = {
  type: 'webhook',
  async search(ctx, p, q, limit) {
    const params: unknown[] = [containsPattern(q), q, limit];
    const visible = readableTeams(p);
    const scope = visible ? `AND team_id = ANY($${params.push(visible)})` : '';
    const r = await ctx.db.query<{ id: string; url: string; team_id: string }>(
      `SELECT id, url, team_id FROM webhooks WHERE (url ILIKE $1 ESCAPE '\\' OR id = $2) ${scope} ORDER BY url, id LIMIT $3`,
      params,
    );
    return r.rows.map((w) => ({ type: 'webhook', id: w.id, title: w.url, url: resourceUrl(ctx, `/api/v1/webhooks/${w.id}`), team: w.team_id }));
  },
};
