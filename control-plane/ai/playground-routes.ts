/**
 * POST /api/v1/keys/{id}/playground-credential: a short-lived credential (core/ai/playground-credential.ts) that
 * the web panel's playground sends to the gateway instead of the key's secret, which nobody can read back. Calls
 * made with it are the key's calls: its models, limits and metering. The answer also says where the gateway is
 * (SVC_GATEWAY_URL; null = the panel's own origin), so a panel served by a control-plane node can reach proxy nodes
 * at another address (they allow the panel's origin with SVC_PANEL_ORIGIN).
 *
 * Who may mint one: whoever may spend with the key, that is write in its team, and for an own key its owner only
 * (team admins see own keys but do not spend with them).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { requireTeam } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { hashSecret, newSecret } from '../../core/ids.ts';
import { object, STRING_OR_NULL, TIME } from '../../core/http/response-schema.ts';
import { PLAYGROUND_CREDENTIAL_TTL_S, PLAYGROUND_SECRET_PREFIX } from '../../core/ai/playground-credential.ts';
import { principal } from '../auth-hook.ts';
import { loadVisibleKey } from './key-service.ts';

const CREDENTIAL = object({
  key: { type: 'string', description: `A ${PLAYGROUND_SECRET_PREFIX}… secret the gateway accepts as this gateway key until expires_at.` },
  key_id: { type: 'string' },
  expires_at: TIME,
  gateway_url: { ...STRING_OR_NULL, description: "The gateway's address for browsers (SVC_GATEWAY_URL); null: the panel's own origin." },
});

export function playgroundRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/v1/keys/:id/playground-credential', {
    schema: {
      tags: ['ai'],
      summary: 'Mint a short-lived credential that calls the gateway as this key (for the web panel\'s playground)',
      params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      response: { 201: CREDENTIAL },
    },
  }, async (req, reply) => {
    const p = principal(req);
    const k = await loadVisibleKey(ctx.db, p, (req.params as { id: string }).id);
    requireTeam(p, k.team_id, 'write');
    if (k.owner_user_id !== null && k.owner_user_id !== p.userId) {
      throw svcError('forbidden', `The key "${k.name}" belongs to another person; only its owner may call the gateway with it.`);
    }
    if (k.disabled) throw svcError('conflict', `The key "${k.name}" is disabled; enable it on the keys page first.`);
    const secret = newSecret(PLAYGROUND_SECRET_PREFIX);
    const now = ctx.clock.now();
    const expires = new Date(now + PLAYGROUND_CREDENTIAL_TTL_S * 1000);
    // Expired credentials are removed here, by the next mint: no scheduler for a table this small.
    await ctx.db.query('DELETE FROM playground_credentials WHERE expires_at < $1', [new Date(now)]);
    await ctx.db.query(
      'INSERT INTO playground_credentials (hash, key_id, user_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)',
      [hashSecret(secret), k.id, p.userId, expires, new Date(now)],
    );
    return reply.code(201).send({ key: secret, key_id: k.id, expires_at: expires.toISOString(), gateway_url: ctx.config.gatewayUrl ?? null });
  });
}
