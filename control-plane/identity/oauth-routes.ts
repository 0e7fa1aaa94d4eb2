/**
 * The OAuth endpoints of the identity role, in their own scope: bodies may be form-encoded (RFC 6749 §4.1.3) or
 * JSON, and every refusal is OAuth's `{"error","error_description"}` (oauth-error.ts), not the family's error object.
 *
 *   POST /oauth/device_authorization   RFC 8628 §3.1: device_code, user_code, verification_uri(_complete)
 *   POST /oauth/token                   grant_type = device_code | refresh_token | token-exchange (RFC 8693)
 *   POST /oauth/revoke                  RFC 7009: a refresh token or access token; its session ends everywhere
 *   GET  /.well-known/jwks.json         the public signing keys
 *   GET  /.well-known/oauth-authorization-server   RFC 8414 metadata
 *
 * Answers carry `Cache-Control: no-store`. Tokens are never logged (the request logger logs no bodies).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { isSvcError } from '../../core/errors.ts';
import { SCOPES, type Scope } from '../../core/auth/principal.ts';
import { isJwtShaped } from '../../core/auth/authenticate.ts';
import { ACCESS_TOKEN_TTL_S, issueAccessToken } from './access-tokens.ts';
import type { AccessTokenKit } from './access-token-kit.ts';
import { DEVICE_CODE_TTL_S, POLL_INTERVAL_S, pollDevice, startDeviceAuthorization } from './device-authorizations.ts';
import { isOAuthError, oauthError } from './oauth-error.ts';
import { createSession, newRefreshToken, rotateRefreshToken, sessionOfRefreshToken, userGrant } from './sign-in-sessions.ts';
import { revokeSession } from './session-state.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const DEVICE_STARTS_PER_IP = 30;
const DEVICE_STARTS_WINDOW_MS = 10 * 60_000;
/** A form or JSON body larger than this is not an OAuth request. */
const BODY_LIMIT = 32 * 1024;

export type OAuthBody = Record<string, string>;
export type TokenAnswer = Record<string, unknown>;
/** A grant type's handler; returns the token answer or throws an OAuthError. */
export type GrantHandler = (body: OAuthBody, req: FastifyRequest) => Promise<TokenAnswer>;

function field(body: OAuthBody, name: string, required: true): string;
function field(body: OAuthBody, name: string, required?: false): string | undefined;
function field(body: OAuthBody, name: string, required = false): string | undefined {
  const v = body[name];
  if (v === undefined || v === '') {
    if (required) throw oauthError('invalid_request', `The parameter ${name} is missing.`);
    return undefined;
  }
  if (typeof v !== 'string') throw oauthError('invalid_request', `The parameter ${name} must be a string.`);
  return v;
}

function scopeOf(body: OAuthBody): Scope {
  const s = field(body, 'scope') ?? 'write';
  if (!SCOPES.includes(s as Scope)) throw oauthError('invalid_scope', `The scope must be one of ${SCOPES.join(', ')}.`);
  return s as Scope;
}

function bodyOf(req: FastifyRequest): OAuthBody {
  const b = req.body;
  if (b === undefined || b === null) return {};
  if (typeof b !== 'object' || Array.isArray(b)) throw oauthError('invalid_request', 'The body must be form-encoded parameters or a JSON object.');
  return b as OAuthBody;
}

function sendOAuthError(reply: FastifyReply, err: unknown, ctx: AppContext): FastifyReply {
  reply.header('cache-control', 'no-store');
  if (isOAuthError(err)) return reply.code(err.status).send({ error: err.error, error_description: err.message });
  const e = err as { statusCode?: number; code?: string; message?: string };
  if (isSvcError(err) && err.status < 500) return reply.code(err.status === 401 ? 401 : 400).send({ error: 'invalid_request', error_description: err.message });
  if (typeof e.statusCode === 'number' && e.statusCode < 500) return reply.code(e.statusCode === 415 ? 400 : e.statusCode).send({ error: 'invalid_request', error_description: e.message ?? 'The request is not valid.' });
  ctx.log.error({ err }, 'oauth endpoint failed');
  return reply.code(500).send({ error: 'server_error', error_description: 'An internal error occurred.' });
}

export function oauthRoutes(ctx: AppContext, kit: AccessTokenKit, extraGrants: Record<string, GrantHandler> = {}) {
  // Read per request: the public URL is known only once the node listens (tests, port 0).
  const base = () => ctx.config.publicUrl;
  const userTokens = async (userId: string, sid: string, scope: Scope, refreshToken: string): Promise<TokenAnswer> => {
    const { token, expiresIn } = await issueAccessToken(ctx, kit.ring, await userGrant(ctx, userId, sid, scope));
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, refresh_token: refreshToken, scope };
  };

  const grants: Record<string, GrantHandler> = {
    [DEVICE_CODE_GRANT]: async (body) => {
      const d = await pollDevice(ctx, field(body, 'device_code', true));
      const { sid, refresh } = await ctx.db.tx(async (q) => {
        const id = await createSession(ctx, q, d.userId, d.scope, d.clientName);
        return { sid: id, refresh: await newRefreshToken(ctx, q, id) };
      });
      return userTokens(d.userId, sid, d.scope, refresh);
    },
    refresh_token: async (body) => {
      const r = await rotateRefreshToken(ctx, field(body, 'refresh_token', true));
      return userTokens(r.userId, r.sid, r.scope, r.refreshToken);
    },
    ...extraGrants,
  };

  return async (app: FastifyInstance): Promise<void> => {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
      const params: OAuthBody = {};
      for (const [k, v] of new URLSearchParams(body as string)) {
        // RFC 6749 §3.2: parameters must not be repeated.
        if (k in params) return done(oauthError('invalid_request', `The parameter ${k} is repeated.`), undefined);
        params[k] = v;
      }
      done(null, params);
    });
    app.setErrorHandler((err, _req, reply) => sendOAuthError(reply, err, ctx));
    const cfg = { public: true, ownAuth: true, openapi: false };

    app.post('/oauth/token', { config: cfg, bodyLimit: BODY_LIMIT }, async (req, reply) => {
      const body = bodyOf(req);
      const type = field(body, 'grant_type', true);
      const grant = Object.hasOwn(grants, type) ? grants[type] : undefined;
      if (!grant) throw oauthError('unsupported_grant_type', `The grant type ${type.slice(0, 100)} is not supported; use one of ${Object.keys(grants).join(', ')}.`);
      const answer = await grant(body, req);
      return reply.header('cache-control', 'no-store').send(answer);
    });

    app.post('/oauth/device_authorization', { config: cfg, bodyLimit: BODY_LIMIT }, async (req, reply) => {
      // Anyone may start a sign-in: bound how many one address starts (the counters down, it is let through).
      const hit = await ctx.counters.hit(`device-auth:${req.ip}`, DEVICE_STARTS_PER_IP, DEVICE_STARTS_WINDOW_MS).catch(() => undefined);
      if (hit && !hit.allowed) {
        reply.header('retry-after', String(Math.ceil(hit.retryAfterMs / 1000)));
        throw oauthError('slow_down', `Too many sign-ins started from this address; try again in ${Math.ceil(hit.retryAfterMs / 60_000)} minutes.`, 429);
      }
      const body = bodyOf(req);
      const scope = scopeOf(body);
      const { deviceCode, userCode } = await startDeviceAuthorization(ctx, field(body, 'client_name') ?? field(body, 'client_id') ?? 'svc', scope);
      return reply.header('cache-control', 'no-store').send({
        device_code: deviceCode,
        user_code: userCode,
        verification_uri: `${base()}/device`,
        verification_uri_complete: `${base()}/device?code=${userCode}`,
        expires_in: DEVICE_CODE_TTL_S,
        interval: POLL_INTERVAL_S,
      });
    });

    // RFC 7009 §2.2: the answer is 200 whether or not the token was known.
    app.post('/oauth/revoke', { config: cfg, bodyLimit: BODY_LIMIT }, async (req, reply) => {
      const token = field(bodyOf(req), 'token', true);
      const sid = isJwtShaped(token) ? await kit.verifier.claims(token).then((c) => c.sid as string, () => undefined) : await sessionOfRefreshToken(ctx, token);
      if (sid?.startsWith('as_')) await revokeSession(ctx, sid, 'signed_out');
      return reply.header('cache-control', 'no-store').send({});
    });

    app.get('/.well-known/jwks.json', { config: cfg }, async (_req, reply) => {
      return reply.header('cache-control', 'public, max-age=300').send(await kit.ring.jwks());
    });

    app.get('/.well-known/oauth-authorization-server', { config: cfg }, async () => ({
      issuer: base(),
      token_endpoint: `${base()}/oauth/token`,
      device_authorization_endpoint: `${base()}/oauth/device_authorization`,
      revocation_endpoint: `${base()}/oauth/revoke`,
      jwks_uri: `${base()}/.well-known/jwks.json`,
      grant_types_supported: Object.keys(grants),
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: SCOPES,
      access_token_lifetime: ACCESS_TOKEN_TTL_S,
    }));
  };
}
