/**
 * Whether the session (`sid`) behind an access token still stands. Access tokens are checked against it on every
 * request: its state is cached per node (cache `access-sessions`), and revoking a session drops that entry on every
 * node through the cache bus, so the session's access tokens stop working at once everywhere. A lost bus message
 * is bounded by the cache TTL.
 *
 * Two kinds of sid: a sign-in session (`as_…`, table auth_sessions) and a trust rule (`tr_…`): the tokens a CI job
 * obtained through a rule end with the rule.
 */
import type { AppContext } from '../../core/context.ts';
import { LookupCache } from '../../core/cache.ts';

export const ACCESS_SESSIONS_CACHE = 'access-sessions';
const TTL_MS = 30_000;

export class SessionState {
  #ctx: AppContext;
  #cache: LookupCache<boolean>;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#cache = ctx.caches.register(new LookupCache<boolean>(ACCESS_SESSIONS_CACHE, TTL_MS));
  }

  /** True while the session stands (not revoked, not ended, its rule not deleted). */
  async stands(sid: string): Promise<boolean> {
    return this.#cache.get(sid, (k) => this.#load(k));
  }

  async #load(sid: string): Promise<boolean> {
    if (sid.startsWith('tr_')) {
      const r = await this.#ctx.db.query('SELECT 1 FROM trust_rules WHERE id = $1 AND deleted_at IS NULL', [sid]);
      return r.rows.length > 0;
    }
    const r = await this.#ctx.db.query('SELECT 1 FROM auth_sessions WHERE id = $1 AND revoked_at IS NULL AND expires_at > $2', [sid, new Date(this.#ctx.clock.now())]);
    return r.rows.length > 0;
  }
}

/** Ends a sign-in session: its refresh tokens and access tokens stop working on every node. */
export async function revokeSession(ctx: AppContext, sid: string, reason: string): Promise<void> {
  await ctx.db.query('UPDATE auth_sessions SET revoked_at = COALESCE(revoked_at, $2), revoked_reason = COALESCE(revoked_reason, $3) WHERE id = $1', [sid, new Date(ctx.clock.now()), reason]);
  await ctx.caches.invalidate(ACCESS_SESSIONS_CACHE, sid);
}
