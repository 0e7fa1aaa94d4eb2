/**
 * Builds the one fastify instance every role mounts its plugins on, with the family's conventions installed once:
 * the error object for every refusal, 404 route_not_found vs 405 method_not_allowed, strict JSON schemas (unknown
 * fields refused), a body limit, and request logging without secrets.
 */
import Fastify, { LogController, type FastifyInstance, type RouteOptions } from 'fastify';
import type { Logger } from '../logger.ts';
import { svcError } from '../errors.ts';
import { sendError } from './reply-error.ts';
import { OpenApiCollector } from './openapi.ts';
import { lazyRequestChildren } from './lazy-request-logger.ts';

declare module 'fastify' {
  interface FastifyInstance {
    openapi: OpenApiCollector;
  }
}

function pathRegex(url: string): RegExp {
  const pattern = url
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${pattern}/?$`);
}

export function createApp(opts: { log: Logger; bodyLimit: number; trustProxy?: boolean | string }): FastifyInstance {
  const app = Fastify({
    loggerInstance: opts.log,
    bodyLimit: opts.bodyLimit,
    // Per-request log lines are off on the hot path; refusals and failures are logged by sendError.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: opts.trustProxy ?? false,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Strict: no type coercion of bodies (query parameters are declared as strings and parsed by the route).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
  }) as unknown as FastifyInstance;

  lazyRequestChildren(app.log);

  const collector = new OpenApiCollector();
  collector.attach(app);
  app.decorate('openapi', collector);

  // Which methods each path answers, to tell 405 from 404.
  const routes: { re: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const existing = routes.find((r) => r.re.source === pathRegex(route.url).source);
    if (existing) methods.forEach((m) => existing.methods.add(m));
    else routes.push({ re: pathRegex(route.url), methods: new Set(methods) });
  });

  app.setErrorHandler((err, req, reply) => sendError(req, reply, err));
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const allowed = new Set<string>();
    for (const r of routes) if (r.re.test(path)) r.methods.forEach((m) => allowed.add(m));
    if (allowed.size > 0) {
      reply.header('Allow', [...allowed].join(', '));
      return sendError(req, reply, svcError('method_not_allowed', `${req.method} is not allowed on ${path}; allowed: ${[...allowed].join(', ')}.`));
    }
    return sendError(req, reply, svcError('route_not_found', `No route matches ${req.method} ${path}.`));
  });
  return app;
}
