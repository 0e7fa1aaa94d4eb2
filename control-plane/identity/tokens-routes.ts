/** /api/v1/tokens: create (secret shown once), list, show, revoke. A token's scope never exceeds its creator's. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { SCOPES, scopeAllows, type Scope } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { parseTtl } from '../../core/ttl.ts';
import { LIST_QUERY, parseListParams } from '../../core/http/list.ts';
import { principal } from '../auth-hook.ts';
import { createToken, revokeToken, tokenView, type TokenRow } from './token-service.ts';
import { findUserId } from './user-service.ts';
import { listTokens } from './list-tokens.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { CREATED_TOKEN, TOKEN_VIEW } from './identity-schemas.ts';

const ID_PARAMS = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;

export function tokensRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/v1/tokens', {
    schema: {
      tags: ['identity'],
      summary: 'Create an API token; the secret is in the answer once',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          scope: { type: 'string', enum: [...SCOPES], default: 'read' },
          ttl: { description: 'Seconds, a duration such as 12h or 3d, or never', default: '90d' },
          user: { type: 'string', description: 'Superusers only: the user (id or name) the token is for' },
        },
      },
      response: { 201: CREATED_TOKEN },
    },
  }, async (req, reply) => {
    const p = principal(req);
    const body = req.body as { name: string; scope: Scope; ttl: unknown; user?: string };
    if (!scopeAllows(p.scope, 'write')) throw svcError('insufficient_scope', 'Creating tokens needs a token with write scope.');
    if (!scopeAllows(p.scope, body.scope)) throw svcError('insufficient_scope', `A ${p.scope} token cannot create a ${body.scope} token.`);
    let userId = p.userId;
    if (body.user !== undefined) {
      if (!p.isSuperuser) throw svcError('superuser_required', 'Only an administrator may create tokens for another user.');
      userId = await findUserId(ctx.db, body.user);
    }
    if (!userId) throw svcError('validation_failed', 'The admin token belongs to no user: name the user the token is for in "user".');
    const ttl = parseTtl(body.ttl);
    const { row, secret } = await createToken(ctx, ctx.db, userId, body.name, body.scope, ttl);
    return reply.code(201).send({ ...tokenView(row), token: secret });
  });

  app.get('/api/v1/tokens', {
    schema: { tags: ['identity'], summary: 'List API tokens (your own; superusers may pass user)', querystring: { type: 'object', properties: { ...LIST_QUERY, user: { type: 'string' } } }, response: { 200: listOf(TOKEN_VIEW) } },
  }, async (req) => {
    const q = req.query as { limit?: string; cursor?: string; user?: string };
    return listTokens(ctx, principal(req), { user: q.user }, parseListParams(q, 2));
  });

  const load = async (id: string, userId: string | null, isSuperuser: boolean): Promise<TokenRow> => {
    const r = await ctx.db.query<TokenRow>('SELECT * FROM api_tokens WHERE id = $1', [id]);
    const t = r.rows[0];
    if (!t || (!isSuperuser && t.user_id !== userId)) throw svcError('not_found', `Token ${id} was not found.`);
    return t;
  };

  app.get('/api/v1/tokens/:id', { schema: { tags: ['identity'], summary: 'Show an API token', params: ID_PARAMS, response: { 200: TOKEN_VIEW } } }, async (req) => {
    const p = principal(req);
    return tokenView(await load((req.params as { id: string }).id, p.userId, p.isSuperuser));
  });

  app.delete('/api/v1/tokens/:id', { schema: { tags: ['identity'], summary: 'Revoke an API token', params: ID_PARAMS, response: { 200: TOKEN_VIEW } } }, async (req) => {
    const p = principal(req);
    if (!scopeAllows(p.scope, 'write')) throw svcError('insufficient_scope');
    const t = await load((req.params as { id: string }).id, p.userId, p.isSuperuser);
    const revoked = await revokeToken(ctx, t.id);
    return tokenView(revoked ?? t);
  });
}
