/**
 * A user's API tokens, newest first (REST GET /api/v1/tokens and the MCP list_tokens tool): your own; superusers may
 * name another user.
 */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import { tokenView, type TokenRow } from './token-service.ts';
import { findUserId } from './user-service.ts';

export async function listTokens(ctx: AppContext, p: Principal, filter: { user?: string }, page: ListParams) {
  let userId = p.userId;
  if (filter.user !== undefined) {
    // Named by id or user name; to others, an unknown user looks the same as someone else's (no existence leak).
    const named = p.isSuperuser ? await findUserId(ctx.db, filter.user) : await findUserId(ctx.db, filter.user).catch(() => null);
    if (!p.isSuperuser && named !== p.userId) throw svcError('forbidden', "Only an administrator may list another user's tokens.");
    userId = named;
  }
  const params: unknown[] = [page.limit + 1];
  const where: string[] = [];
  if (userId) where.push(`user_id = $${params.push(userId)}`);
  else if (!p.isSuperuser) return { items: [], next_cursor: null };
  if (page.after) where.push(`(created_at, id) < ($${params.push(page.after[0])}::timestamptz, $${params.push(page.after[1])})`);
  const r = await ctx.db.query<TokenRow>(
    `SELECT * FROM api_tokens ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $1`,
    params,
  );
  return listEnvelope(r.rows, page.limit, (t) => [t.created_at.toISOString(), t.id], tokenView);
}
