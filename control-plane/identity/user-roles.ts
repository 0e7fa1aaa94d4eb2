/**
 * A user's current superuser flag and team roles, cached per node. The cache shares the name of the API tokens'
 * cache (`principals`), so every membership change, which drops that cache on every node, drops these entries too:
 * this service applies a role change to access tokens at once, although the roles written inside a token (for
 * other services that read it) may be up to 15 minutes old.
 */
import type { AppContext } from '../../core/context.ts';
import { LookupCache } from '../../core/cache.ts';
import { PRINCIPALS_CACHE } from '../../core/auth/authenticate.ts';
import type { TeamRole } from '../../core/auth/principal.ts';

export interface UserRolesNow {
  isSuperuser: boolean;
  teams: Map<string, TeamRole>;
}

export class UserRoles {
  #ctx: AppContext;
  #cache: LookupCache<UserRolesNow | null>;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#cache = ctx.caches.register(new LookupCache<UserRolesNow | null>(PRINCIPALS_CACHE, 30_000));
  }

  /** null when the user no longer exists. */
  of(userId: string): Promise<UserRolesNow | null> {
    return this.#cache.get(`u:${userId}`, () => this.#load(userId));
  }

  async #load(userId: string): Promise<UserRolesNow | null> {
    const u = await this.#ctx.db.query<{ is_superuser: boolean }>('SELECT is_superuser FROM users WHERE id = $1', [userId]);
    if (!u.rows[0]) return null;
    const m = await this.#ctx.db.query<{ team_id: string; role: TeamRole }>('SELECT team_id, role FROM memberships WHERE user_id = $1', [userId]);
    return { isSuperuser: u.rows[0].is_superuser, teams: new Map(m.rows.map((r) => [r.team_id, r.role])) };
  }
}
