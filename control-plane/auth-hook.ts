/**
 * Authentication for /api/v1 and /mcp: Bearer token (API token or SVC_ADMIN_TOKEN) or the panel's session cookie.
 * Cookie-authenticated requests from another site are refused (403 cross_site_request): browsers send
 * Sec-Fetch-Site, and Origin on cross-origin writes.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Authenticator, SESSION_COOKIE } from '../core/auth/authenticate.ts';
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
  }
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

function isCrossSite(req: FastifyRequest, publicUrl: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    const host = req.headers.host;
    try {
      const o = new URL(origin);
      return o.host !== host && o.origin !== new URL(publicUrl).origin;
    } catch {
      return true;
    }
  }
  return false;
}

export function installAuth(app: FastifyInstance, ctx: AppContext): Authenticator {
  const auth = new Authenticator(ctx);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (req) => {
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
      req.principal = await auth.fromSession(session);
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
