/**
 * Search providers of the AI gateway's resources (GET /api/v1/search): gateway keys the caller can see (by name or
 * id), provider accounts for superusers (by name or id) and model aliases for everyone (by name or a listed model).
 */
import { containsPattern, resourceUrl, type SearchProvider } from '../search/search-registry.ts';
import { visibleKeysWhere } from './key-service.ts';

export const keySearch: SearchProvider = {
  type: 'key',
  async search(ctx, p, q, limit) {
    const params: unknown[] = [containsPattern(q), q, limit];
    const visible = visibleKeysWhere(p, params);
    const r = await ctx.db.query<{ id: string; name: string; team_id: string }>(
      `SELECT id, name, team_id FROM gateway_keys WHERE (name ILIKE $1 ESCAPE '\\' OR id = $2) AND ${visible} ORDER BY name, id LIMIT $3`,
      params,
    );
    return r.rows.map((k) => ({ type: 'key', id: k.id, title: k.name, url: resourceUrl(ctx, `/api/v1/keys/${k.id}`), team: k.team_id }));
  },
};

export const accountSearch: SearchProvider = {
  type: 'account',
  async search(ctx, p, q, limit) {
    if (!p.isSuperuser) return [];
    const r = await ctx.db.query<{ id: string; name: string }>(
      `SELECT id, name FROM provider_accounts WHERE name ILIKE $1 ESCAPE '\\' OR id = $2 ORDER BY name, id LIMIT $3`,
      [containsPattern(q), q, limit],
    );
    return r.rows.map((a) => ({ type: 'account', id: a.id, title: a.name, url: resourceUrl(ctx, `/api/v1/accounts/${a.id}`), team: null }));
  },
};

export const aliasSearch: SearchProvider = {
  type: 'alias',
  async search(ctx, _p, q, limit) {
    const r = await ctx.db.query<{ name: string; models: string[] }>(
      `SELECT name, models FROM model_aliases WHERE name ILIKE $1 ESCAPE '\\' OR $2 = ANY(models) ORDER BY name LIMIT $3`,
      [containsPattern(q), q, limit],
    );
    return r.rows.map((a) => ({ type: 'alias', id: a.name, title: `${a.name} → ${a.models.join(', ')}`, url: resourceUrl(ctx, `/api/v1/aliases/${encodeURIComponent(a.name)}`), team: null }));
  },
};
