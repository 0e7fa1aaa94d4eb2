/** Search provider: the caller's own API tokens (never anyone else's, not even for administrators), by name or id. */
import { containsPattern, resourceUrl, type SearchProvider } from './search-registry.ts';

export const tokenSearch: SearchProvider = {
  type: 'token',
  async search(ctx, p, q, limit) {
    if (!p.userId) return [];
    const r = await ctx.db.query<{ id: string; name: string }>(
      `SELECT id, name FROM api_tokens WHERE user_id = $1 AND (name ILIKE $2 ESCAPE '\\' OR id = $3) ORDER BY name, id LIMIT $4`,
      [p.userId, containsPattern(q), q, limit],
    );
    return r.rows.map((t) => ({ type: 'token', id: t.id, title: t.name, url: resourceUrl(ctx, `/api/v1/tokens/${t.id}`), team: null }));
  },
};
