/**
 * Team limits, a resource of the team set by superusers: `ai.keys` (gateway keys a team may have), `ai.tokens`
 * (tokens per calendar month UTC across the team's keys), `errors.events` (error events per calendar month UTC).
 * Absent = unlimited. Read through a cache that every node drops when a superuser changes them.
 */
import type { Queryable } from './db/db.ts';

export const TEAM_LIMIT_NAMES = ['ai.keys', 'ai.tokens', 'errors.events'] as const;
export type TeamLimitName = (typeof TEAM_LIMIT_NAMES)[number];
export type TeamLimits = Partial<Record<TeamLimitName, number>>;

export const TEAM_LIMITS_CACHE = 'team-limits';

export async function readTeamLimits(db: Queryable, teamId: string): Promise<TeamLimits> {
  const r = await db.query<{ limits: TeamLimits }>('SELECT limits FROM teams WHERE id = $1', [teamId]);
  return r.rows[0]?.limits ?? {};
}
