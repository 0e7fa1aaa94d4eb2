/** Search provider: teams the caller can read, by name or id. */
import { readableTeams } from '../../core/auth/principal.ts';
import { containsPattern, resourceUrl, type SearchProvider } from './search-registry.ts';

export const teamSearch: SearchProvider = {
  type: 'team',
  async search(ctx, p, q, limit) {
    const params: unknown[] = [containsPattern(q), q, limit];
    const visible = readableTeams(p);
    const scope = visible ? `AND id = ANY($${params.push(visible)})` : '';
    const r = await ctx.db.query<{ id: string; name: string }>(
      `SELECT id, name FROM teams WHERE (name ILIKE $1 ESCAPE '\\' OR id = $2) ${scope} ORDER BY name, id LIMIT $3`,
      params,
    );
    return r.rows.map((t) => ({ type: 'team', id: t.id, title: t.name, url: resourceUrl(ctx, `/api/v1/teams/${t.id}`), team: t.id }));
  },
};
