/** The teams a principal can see, by name (REST GET /api/v1/teams and the MCP list_teams tool). */
import type { AppContext } from '../../core/context.ts';
import { readableTeams, type Principal } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import type { TeamLimits } from '../../core/team-limits.ts';

export interface TeamRow {
  id: string;
  name: string;
  limits: TeamLimits;
  created_at: Date;
}

export const teamView = (t: TeamRow) => ({ id: t.id, name: t.name, limits: t.limits, created_at: rfc3339(t.created_at) });

export async function listTeams(ctx: AppContext, p: Principal, page: ListParams) {
  const visible = readableTeams(p);
  const params: unknown[] = [page.limit + 1];
  const where: string[] = [];
  if (visible) where.push(`id = ANY($${params.push(visible)})`);
  if (page.after) where.push(`name > $${params.push(page.after[0])}`);
  const r = await ctx.db.query<TeamRow>(`SELECT * FROM teams ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY name LIMIT $1`, params);
  return listEnvelope(r.rows, page.limit, (t) => [t.name], teamView);
}
