/**
 * Password sign-in. POST /api/v1/auth/login sets the panel's HttpOnly, SameSite=Strict session cookie;
 * POST /api/v1/auth/token exchanges the same credentials for an API token (what `svc login` stores);
 * POST /api/v1/auth/logout ends the session. Both sign-in calls pass the guessing throttle (login-throttle.ts)
 * before the password is hashed; DELETE /api/v1/auth/sign-in-failures lets a superuser lift it early.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { PRINCIPALS_CACHE, SESSION_COOKIE } from '../../core/auth/authenticate.ts';
import { verifyPassword } from '../../core/auth/password.ts';
import { requireSuperuser, SCOPES, type Scope } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { hashSecret, newId, newSecret } from '../../core/ids.ts';
import { parseTtl } from '../../core/ttl.ts';
import { principal, readCookie } from '../auth-hook.ts';
import { LoginThrottle } from './login-throttle.ts';
import { revokeSession } from './session-state.ts';
import { createToken, tokenView } from './token-service.ts';
import { findUserId, userView, type UserRow } from './user-service.ts';
import { object, STRING_OR_NULL } from '../../core/http/response-schema.ts';
import { CREATED_TOKEN, USER_VIEW } from './identity-schemas.ts';

const SESSION_SECONDS = 7 * 86400;

const CREDENTIALS = {
  username: { type: 'string', minLength: 1, maxLength: 200 },
  password: { type: 'string', minLength: 1, maxLength: 200 },
} as const;

export async function checkCredentials(ctx: AppContext, throttle: LoginThrottle, req: FastifyRequest, username: string, password: string): Promise<UserRow> {
  const r = await ctx.db.query<UserRow>('SELECT * FROM users WHERE username = $1 OR email = $1', [username]);
  const u = r.rows[0];
  // An unknown name is throttled like a known one, so refusals do not reveal which names exist either.
  const attempt = await throttle.check(LoginThrottle.account(u?.id, username), req.ip);
  // Verify against a dummy hash when the user is unknown, so timing does not reveal which names exist.
  const ok = await verifyPassword(password, u?.password_hash ?? 'scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  if (!u || !u.password_hash || !ok) {
    await throttle.failed(attempt);
    throw svcError('invalid_credentials');
  }
  await throttle.succeeded(attempt);
  return u;
}

/** The sign-in throttle (its counts live in the shared counters, so every instance sees the same). */
export function signInThrottle(ctx: AppContext): LoginThrottle {
  return new LoginThrottle(ctx.counters, ctx.log, {
    maxPerUser: ctx.config.signinMaxFailuresPerUser,
    maxPerIp: ctx.config.signinMaxFailuresPerIp,
    windowS: ctx.config.signinWindowS,
  });
}

export function loginRoutes(app: FastifyInstance, ctx: AppContext): void {
  const secure = ctx.config.publicUrl.startsWith('https:');
  const throttle = signInThrottle(ctx);

  app.post('/api/v1/auth/login', {
    config: { public: true },
    schema: {
      tags: ['identity'],
      summary: 'Sign in with a password; sets the session cookie',
      body: { type: 'object', additionalProperties: false, required: ['username', 'password'], properties: CREDENTIALS },
      response: { 200: object({ user: USER_VIEW, expires_in: { type: 'integer', description: 'Seconds the session lasts.' } }) },
    },
  }, async (req, reply) => {
    const b = req.body as { username: string; password: string };
    const u = await checkCredentials(ctx, throttle, req, b.username, b.password);
    const secret = newSecret('ses_');
    await ctx.db.query('INSERT INTO panel_sessions (id, user_id, session_hash, expires_at) VALUES ($1, $2, $3, $4)', [
      newId(), u.id, hashSecret(secret), new Date(ctx.clock.now() + SESSION_SECONDS * 1000),
    ]);
    reply.header('Set-Cookie', `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_SECONDS}${secure ? '; Secure' : ''}`);
    return { user: userView(u), expires_in: SESSION_SECONDS };
  });

  app.post('/api/v1/auth/token', {
    config: { public: true },
    schema: {
      tags: ['identity'],
      summary: 'Exchange a user name and password for an API token (shown once)',
      body: { type: 'object', additionalProperties: false, required: ['username', 'password'], properties: { ...CREDENTIALS, name: { type: 'string', minLength: 1, maxLength: 100, default: 'cli' }, scope: { type: 'string', enum: [...SCOPES], default: 'write' }, ttl: { default: '90d' } } },
      response: { 201: CREATED_TOKEN },
    },
  }, async (req, reply) => {
    const b = req.body as { username: string; password: string; name: string; scope: Scope; ttl: unknown };
    const ttl = parseTtl(b.ttl);
    const u = await checkCredentials(ctx, throttle, req, b.username, b.password);
    const { row, secret } = await createToken(ctx, ctx.db, u.id, b.name, b.scope, ttl);
    return reply.code(201).send({ ...tokenView(row), token: secret });
  });

  app.delete('/api/v1/auth/sign-in-failures', {
    schema: {
      tags: ['identity'],
      summary: 'Forget the failed sign-ins of a user and/or a client address, lifting the throttle early (superusers)',
      querystring: { type: 'object', additionalProperties: false, properties: { user: { type: 'string', minLength: 1, maxLength: 200 }, ip: { type: 'string', minLength: 1, maxLength: 100 } } },
      response: { 200: object({ cleared: object({ user: STRING_OR_NULL, ip: STRING_OR_NULL }) }) },
    },
  }, async (req) => {
    requireSuperuser(principal(req));
    const q = req.query as { user?: string; ip?: string };
    if (q.user === undefined && q.ip === undefined) throw svcError('validation_failed', 'Name the user (user=) or the client address (ip=) whose failed sign-ins to forget.');
    const userId = q.user === undefined ? undefined : await findUserId(ctx.db, q.user);
    if (userId) await throttle.clear(LoginThrottle.account(userId, ''));
    if (q.ip !== undefined) await throttle.clear(LoginThrottle.address(q.ip));
    return { cleared: { user: q.user ?? null, ip: q.ip ?? null } };
  });

  app.post('/api/v1/auth/logout', { config: { public: true }, schema: { tags: ['identity'], summary: 'End the panel session, or the sign-in session of the access token sent', response: { 200: object({ ok: { type: 'boolean' } }) } } }, async (req: FastifyRequest, reply) => {
    // An access token's session (svc login) ends on every node at once.
    if (req.principal?.sessionId?.startsWith('as_')) await revokeSession(ctx, req.principal.sessionId, 'signed_out');
    const secret = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (secret) {
      await ctx.db.query('DELETE FROM panel_sessions WHERE session_hash = $1', [hashSecret(secret)]);
      await ctx.caches.invalidate(PRINCIPALS_CACHE, `s:${hashSecret(secret)}`);
    }
    reply.header('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
    return { ok: true };
  });
}
