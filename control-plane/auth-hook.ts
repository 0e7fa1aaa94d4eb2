/**
 * Authentication for /api/v1 and /mcp: Bearer token (API token, access token or SVC_ADMIN_TOKEN) or the panel's
 * session cookie.
 * Cookie-authenticated requests from another site are refused (403 cross_site_request): browsers send
 * Sec-Fetch-Site, and Origin on cross-origin writes.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Authenticator, SESSION_COOKIE, type AccessTokenVerifier } from '../core/auth/authenticate.ts';
import type { Principal } from '../core/auth/principal.ts';
import type { AppContext } from '../core/context.ts';
import { svcError } from '../core/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** The route needs no credentials (meta, health, login, openapi). */
    public?: boolean;
    openapi?: boolean;
    /** The route reads the Authorization header itself (the OAuth endpoints answer in OAuth's error shape). */
    ownAuth?: boolean;
  }
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      const raw = part.slice(i + 1).trim();
      // A malformed %-escape is a bad cookie, not a server error: hand back the raw value (it then matches no session).
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw;
      }
    }
  }
  return undefined;
}

function isCrossSite(req: FastifyRequest, publicUrl: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (typeof origin === 'string') {
    // "null" is an opaque origin (sandboxed frame, cross-site redirect): never this site.
    if (origin === 'null') return true;
    try {
      const o = new URL(origin).origin;
      // The origin this request was addressed to (URL drops default ports: Host "x:443" over https is https://x).
      const own = req.host ? new URL(`${req.protocol}://${req.host}`).origin : undefined;
      return o !== own && o !== new URL(publicUrl).origin;
    } catch {
      return true;
    }
  }
  return false;
}

export function installAuth(app: FastifyInstance, ctx: AppContext, accessTokens?: AccessTokenVerifier): Authenticator {
  const auth = new Authenticator(ctx, accessTokens);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config?.ownAuth) return;
    const header = req.headers.authorization;
    if (typeof header === 'string' && header !== '') {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      if (!m) throw svcError('invalid_token', 'The Authorization header must be "Bearer <token>".');
      req.principal = await auth.fromBearer(m[1]);
      return;
    }
    const session = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (session) {
      if (isCrossSite(req, ctx.config.publicUrl)) throw svcError('cross_site_request');
      try {
        req.principal = await auth.fromSession(session);
      } catch (e) {
        // An expired or unknown session cookie must not lock the browser out of public routes (signing in again).
        if (!req.routeOptions.config?.public) throw e;
      }
    }
  });
  app.addHook('preHandler', async (req) => {
    if (req.routeOptions.config?.public) return;
    if (!req.principal) throw svcError('unauthenticated');
  });
  return auth;
}

/** The authenticated caller of a non-public route (the preHandler guarantees one). */
export function principal(req: FastifyRequest): Principal {
  if (!req.principal) throw svcError('unauthenticated');
  return req.principal;
}
