/**
 * GET /api/v1/quota, authorized by a gateway key rather than an API token: what the key has left this month
 * (key-quota.ts). The key travels as `Authorization: Bearer sk-svc-…` or `x-api-key`, as the SDKs send it. The
 * route sits outside the API-token authentication (server/features.ts mounts it beside the control plane), so it
 * reads the key by its hash itself; an unknown, disabled or deleted key is a 401.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { svcError } from '../../core/errors.ts';
import { hashSecret } from '../../core/ids.ts';
import { keyQuota, type QuotaKey } from './key-quota.ts';
import { KEY_QUOTA } from './usage-schemas.ts';

function presentedKey(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
  if (m) return m[1];
  const x = req.headers['x-api-key'];
  return typeof x === 'string' && x !== '' ? x.trim() : undefined;
}

export function quotaRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/v1/quota', {
    schema: {
      tags: ['ai'],
      summary: "A gateway key's limits, spend this month (calendar month, UTC), requests in the last minute and day, and what remains; authorized by the key itself (Bearer sk-svc-… or x-api-key)",
      response: { 200: KEY_QUOTA },
    },
  }, async (req) => {
    const secret = presentedKey(req);
    if (!secret) throw svcError('invalid_api_key', 'Send the gateway key as "Authorization: Bearer sk-svc-…" or in the x-api-key header.');
    const r = await ctx.db.query<QuotaKey>(
      'SELECT id, name, team_id, limits FROM gateway_keys WHERE key_hash = $1 AND deleted_at IS NULL AND NOT disabled',
      [hashSecret(secret)],
    );
    if (!r.rows[0]) throw svcError('invalid_api_key', 'The gateway key is not valid (unknown, disabled or deleted).');
    return keyQuota(ctx, r.rows[0]);
  });
}
