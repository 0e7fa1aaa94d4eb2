/**
 * Approving a device sign-in (RFC 8628) in the panel or from a terminal:
 *   GET  /api/v1/auth/device?code=ABCD-EFGH   what is waiting (client name, scope), for the approval page
 *   POST /api/v1/auth/device/approve {user_code}                      signed in (panel session or token)
 *   POST /api/v1/auth/device/approve {user_code, username, password}  with the password instead (no panel at hand);
 *        throttled like every password sign-in
 *   POST /api/v1/auth/device/deny {user_code}
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { rfc3339 } from '../../core/clock.ts';
import { svcError } from '../../core/errors.ts';
import { SCOPES } from '../../core/auth/principal.ts';
import { principal } from '../auth-hook.ts';
import { decideDevice, pendingDevice, type PendingDevice } from './device-authorizations.ts';
import { checkCredentials, signInThrottle } from './login-routes.ts';
import { DEVICE_DECISION, DEVICE_VIEW } from './identity-schemas.ts';

const CODE = { type: 'string', minLength: 1, maxLength: 20 } as const;

function view(d: PendingDevice): Record<string, unknown> {
  return { user_code: d.userCode, client_name: d.clientName, scope: d.scope, expires_at: rfc3339(d.expiresAt) };
}

export function deviceRoutes(app: FastifyInstance, ctx: AppContext): void {
  const throttle = signInThrottle(ctx);

  app.get('/api/v1/auth/device', {
    schema: { tags: ['identity'], summary: 'The device sign-in waiting for this user code', querystring: { type: 'object', additionalProperties: false, required: ['code'], properties: { code: CODE } }, response: { 200: DEVICE_VIEW } },
  }, async (req) => {
    principal(req);
    return view(await pendingDevice(ctx, (req.query as { code: string }).code));
  });

  app.post('/api/v1/auth/device/approve', {
    config: { public: true },
    schema: {
      tags: ['identity'],
      summary: 'Approve a device sign-in: signed in, or with a user name and password',
      body: { type: 'object', additionalProperties: false, required: ['user_code'], properties: { user_code: CODE, username: { type: 'string', minLength: 1, maxLength: 200 }, password: { type: 'string', minLength: 1, maxLength: 200 } } },
      response: { 200: DEVICE_DECISION },
    },
  }, async (req) => {
    const b = req.body as { user_code: string; username?: string; password?: string };
    let userId: string | null;
    if (b.username !== undefined || b.password !== undefined) {
      if (b.username === undefined || b.password === undefined) throw svcError('validation_failed', 'Send both username and password, or neither (signed in).');
      userId = (await checkCredentials(ctx, throttle, req, b.username, b.password)).id;
    } else {
      const p = principal(req);
      userId = p.userId;
      // The admin token belongs to no user: a session needs one.
      if (!userId) throw svcError('forbidden', 'Approve a device sign-in as a user (the admin token belongs to no user).');
      // A credential cannot approve a session of a wider scope than its own.
      const d = await pendingDevice(ctx, b.user_code);
      if (SCOPES.indexOf(d.scope) > SCOPES.indexOf(p.scope)) throw svcError('insufficient_scope', `This sign-in asks for ${d.scope} scope, more than your credential has (${p.scope}).`);
    }
    return { approved: true, ...view(await decideDevice(ctx, b.user_code, userId)) };
  });

  app.post('/api/v1/auth/device/deny', {
    schema: { tags: ['identity'], summary: 'Deny a device sign-in', body: { type: 'object', additionalProperties: false, required: ['user_code'], properties: { user_code: CODE } }, response: { 200: DEVICE_DECISION } },
  }, async (req) => {
    principal(req);
    return { approved: false, ...view(await decideDevice(ctx, (req.body as { user_code: string }).user_code, null)) };
  });
}
