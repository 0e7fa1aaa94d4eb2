/**
 * POST /api/v1/accounts/{id}/quota/refresh (superusers): reads the account's quota windows now (usage endpoint, else
 * recent rate-limit headers), stores them, pauses or resumes on them, and answers the account's quota details.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../core/context.ts';
import { requireSuperuser } from '../../../core/auth/principal.ts';
import { svcError } from '../../../core/errors.ts';
import { readAccountQuota, type QuotaAccount } from '../../../core/ai/subscriptions/read-account-quota.ts';
import { principal } from '../../auth-hook.ts';
import { accountDetails } from './account-details.ts';
import { QUOTA_REFRESHED } from '../ai-schemas.ts';

export function quotaRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/v1/accounts/:id/quota/refresh', {
    schema: {
      tags: ['ai'],
      summary: "Read a subscription account's quota windows now (superusers)",
      params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      response: { 200: QUOTA_REFRESHED },
    },
  }, async (req) => {
    requireSuperuser(principal(req));
    const id = (req.params as { id: string }).id;
    const r = await ctx.db.query<QuotaAccount & { kind: string }>('SELECT id, provider, kind, proxy_url FROM provider_accounts WHERE id = $1', [id]);
    const a = r.rows[0];
    if (!a) throw svcError('not_found', `Provider account ${id} was not found.`);
    if (a.kind !== 'subscription') throw svcError('validation_failed', `Account ${id} is an API-key account; quota windows are read for subscription accounts only.`, { field: 'id' });
    await readAccountQuota(ctx, a);
    return { id, ...(await accountDetails(ctx, id)) };
  });
}
