/** Search providers: error-tracking projects (by name, slug or id) and issues (by title or id) the caller can read. */
import { readableTeams } from '../../core/auth/principal.ts';
import { containsPattern, resourceUrl, type SearchProvider } from '../search/search-registry.ts';

export const projectSearch: SearchProvider = {
  type: 'project',
  async search(ctx, p, q, limit) {
    const params: unknown[] = [containsPattern(q), /^\d{1,15}$/.test(q) ? Number(q) : null, limit];
    const visible = readableTeams(p);
    const scope = visible ? `AND team_id = ANY($${params.push(visible)})` : '';
    const r = await ctx.db.query<{ id: number; name: string; team_id: string }>(
      `SELECT id, name, team_id FROM projects WHERE (name ILIKE $1 ESCAPE '\\' OR slug ILIKE $1 ESCAPE '\\' OR id = $2) ${scope}
       ORDER BY name, id LIMIT $3`,
      params,
    );
    return r.rows.map((x) => ({ type: 'project', id: String(x.id), title: x.name, url: resourceUrl(ctx, `/api/v1/projects/${x.id}`), team: x.team_id }));
  },
};

export const issueSearch: SearchProvider = {
  type: 'issue',
  async search(ctx, p, q, limit) {
    const params: unknown[] = [containsPattern(q), q, limit];
    const visible = readableTeams(p);
    const scope = visible ? `AND p.team_id = ANY($${params.push(visible)})` : '';
    const r = await ctx.db.query<{ id: string; title: string; team_id: string }>(
      `SELECT i.id, i.title, p.team_id FROM issues i JOIN projects p ON p.id = i.project_id
       WHERE (i.title ILIKE $1 ESCAPE '\\' OR i.id = $2) ${scope} ORDER BY i.title, i.id LIMIT $3`,
      params,
    );
    return r.rows.map((x) => ({ type: 'issue', id: x.id, title: x.title, url: resourceUrl(ctx, `/api/v1/issues/${x.id}`), team: x.team_id }));
  },
};
