/**
 * Team memberships with the owner rules: team admins add members and change roles (`manage`); only owners (and
 * superusers) make someone an owner, demote an owner or remove one (`own`); a team that has owners keeps at least
 * one (409 team_last_owner). The owner rows are locked in the transaction, so two owners demoting each other at
 * once cannot leave the team without one.
 */
import type { AppContext } from '../../core/context.ts';
import { PRINCIPALS_CACHE } from '../../core/auth/authenticate.ts';
import { requireTeam, type Principal, type TeamRole } from '../../core/auth/principal.ts';
import type { Queryable } from '../../core/db/db.ts';
import { svcError } from '../../core/errors.ts';

interface Standing {
  owners: string[];
  current: TeamRole | undefined;
}

async function standing(q: Queryable, teamId: string, userId: string): Promise<Standing> {
  const owners = await q.query<{ user_id: string }>("SELECT user_id FROM memberships WHERE team_id = $1 AND role = 'owner' FOR UPDATE", [teamId]);
  const m = await q.query<{ role: TeamRole }>('SELECT role FROM memberships WHERE team_id = $1 AND user_id = $2 FOR UPDATE', [teamId, userId]);
  return { owners: owners.rows.map((r) => r.user_id), current: m.rows[0]?.role };
}

function keepOneOwner(s: Standing, userId: string): void {
  if (s.current === 'owner' && s.owners.length === 1 && s.owners[0] === userId) throw svcError('team_last_owner');
}

/** Adds the user to the team with this role, or changes their role. */
export async function setMembership(ctx: AppContext, p: Principal, teamId: string, userId: string, role: TeamRole): Promise<void> {
  requireTeam(p, teamId, 'manage');
  await ctx.db.tx(async (q) => {
    const s = await standing(q, teamId, userId);
    if (role === 'owner' || s.current === 'owner') requireTeam(p, teamId, 'own');
    if (role !== 'owner') keepOneOwner(s, userId);
    await q.query('INSERT INTO memberships (team_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT (team_id, user_id) DO UPDATE SET role = EXCLUDED.role', [teamId, userId, role]);
  });
  await ctx.caches.invalidate(PRINCIPALS_CACHE);
}

/** Removes the user from the team; not a member → 404 not_found. */
export async function removeMembership(ctx: AppContext, p: Principal, teamId: string, userId: string): Promise<void> {
  requireTeam(p, teamId, 'manage');
  await ctx.db.tx(async (q) => {
    const s = await standing(q, teamId, userId);
    if (!s.current) throw svcError('not_found', 'That user is not a member of this team.');
    if (s.current === 'owner') requireTeam(p, teamId, 'own');
    keepOneOwner(s, userId);
    await q.query('DELETE FROM memberships WHERE team_id = $1 AND user_id = $2', [teamId, userId]);
  });
  await ctx.caches.invalidate(PRINCIPALS_CACHE);
}
