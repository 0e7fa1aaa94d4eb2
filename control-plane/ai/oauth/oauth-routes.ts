/**
 * Signing in subscription accounts (superusers): POST /api/v1/accounts/oauth/start and /finish. The panel and the
 * CLI drive the same two calls: start → open the URL (or the device page) → finish with the pasted code or callback
 * URL (or, for a device sign-in, the state alone until it answers 201). Accounts of kind `subscription` are created
 * only here; POST /api/v1/accounts refuses them.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../core/context.ts';
import { requireSuperuser } from '../../../core/auth/principal.ts';
import { principal } from '../../auth-hook.ts';
import { MODEL_LIST_SCHEMA } from '../model-list-input.ts';
import { finishSignIn, type FinishInput } from './finish-sign-in.ts';
import { startSignIn, type StartInput } from './start-sign-in.ts';
import { SIGN_IN_PENDING, SIGN_IN_STARTED, SIGNED_IN_ACCOUNT } from '../ai-schemas.ts';

export function oauthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/v1/accounts/oauth/start', {
    schema: {
      tags: ['ai'],
      summary: 'Start signing in a subscription account (superusers): answers the URL to open',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['provider'],
        properties: {
          provider: { type: 'string', description: 'anthropic (or claude), openai (or chatgpt), gemini (or gemini-plan).' },
          name: { type: 'string', minLength: 1, maxLength: 100, description: 'Name of the new account (required unless account_id is given).' },
          flow: { type: 'string', enum: ['code', 'device'], description: 'code (default): authorization code with PKCE; device: ChatGPT device sign-in.' },
          account_id: { type: 'string', description: 'Sign this existing subscription account in again instead of adding one.' },
          proxy_url: { type: ['string', 'null'], description: 'Outbound HTTP(S) proxy for this account (sign-in, refresh, calls, quota).' },
          models: { ...MODEL_LIST_SCHEMA, description: 'Model ids or * patterns the account serves; empty = any.' },
          weight: { type: 'integer', minimum: 1, maximum: 1000 },
          priority: { type: 'integer', minimum: -1000, maximum: 1000 },
          project_id: { type: 'string', minLength: 1, maxLength: 200, description: 'Gemini plans: the Code Assist project (looked up when absent).' },
        },
      },
      response: { 201: SIGN_IN_STARTED },
    },
  }, async (req, reply) => {
    const p = principal(req);
    requireSuperuser(p);
    return reply.code(201).send(await startSignIn(ctx, req.body as StartInput, p.userId));
  });

  app.post('/api/v1/accounts/oauth/finish', {
    schema: {
      tags: ['ai'],
      summary: 'Finish a sign-in with the pasted code or callback URL (superusers): creates the subscription account',
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          state: { type: 'string', minLength: 1, maxLength: 512, description: 'The state from start (optional when callback_url carries it).' },
          code: { type: 'string', maxLength: 8192, description: 'The code the provider showed (Claude shows code#state).' },
          callback_url: { type: 'string', maxLength: 8192, description: 'The whole address the browser ended on after approving.' },
        },
      },
      response: { 200: SIGNED_IN_ACCOUNT, 201: SIGNED_IN_ACCOUNT, 202: SIGN_IN_PENDING },
    },
  }, async (req, reply) => {
    requireSuperuser(principal(req));
    const a = await finishSignIn(ctx, req.body as FinishInput);
    return reply.code(a.status).send(a.body);
  });
}
