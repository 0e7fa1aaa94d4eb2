/** API tokens `tk_…`: created for a user with a scope and a ttl, shown once, stored hashed, revocable. */
import type { AppContext } from '../../core/context.ts';
import type { Scope } from '../../core/auth/principal.ts';
import type { Queryable } from '../../core/db/db.ts';
import { PRINCIPALS_CACHE } from '../../core/auth/authenticate.ts';
import { hashSecret, newId, newSecret } from '../../core/ids.ts';
import { rfc3339 } from '../../core/clock.ts';

export interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  scope: Scope;
  token_hint: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

export function tokenView(t: TokenRow): Record<string, unknown> {
  return {
    id: t.id,
    user: t.user_id,
    name: t.name,
    scope: t.scope,
    hint: t.token_hint,
    expires_at: rfc3339(t.expires_at),
    revoked_at: rfc3339(t.revoked_at),
    last_used_at: rfc3339(t.last_used_at),
    created_at: rfc3339(t.created_at),
  };
}

export async function createToken(ctx: AppContext, db: Queryable, userId: string, name: string, scope: Scope, ttlSeconds: number | null): Promise<{ row: TokenRow; secret: string }> {
  const secret = newSecret('tk_');
  const expires = ttlSeconds === null ? null : new Date(ctx.clock.now() + ttlSeconds * 1000);
  const r = await db.query<TokenRow>(
    `INSERT INTO api_tokens (id, user_id, name, scope, token_hash, token_hint, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [newId(), userId, name, scope, hashSecret(secret), `${secret.slice(0, 7)}…`, expires, new Date(ctx.clock.now())],
  );
  return { row: r.rows[0], secret };
}

export async function revokeToken(ctx: AppContext, id: string): Promise<TokenRow | undefined> {
  const r = await ctx.db.query<TokenRow & { token_hash: string }>(
    'UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING *',
    [id, new Date(ctx.clock.now())],
  );
  const row = r.rows[0];
  if (row) await ctx.caches.invalidate(PRINCIPALS_CACHE, `t:${row.token_hash}`);
  return row;
}
