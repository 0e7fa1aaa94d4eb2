/**
 * Builds the one fastify instance every role mounts its plugins on, with the family's conventions installed once:
 * the error object for every refusal (also those fastify and Node's parser make before any route runs: bad URL,
 * oversized headers, malformed HTTP, slow requests), 404 route_not_found vs 405 method_not_allowed, strict JSON
 * schemas (unknown fields refused), a body limit, a request timeout, request metrics, and one log line per request
 * without secrets (request-observer.ts).
 *
 * The request timeout (SVC_REQUEST_BODY_TIMEOUT_MS) is Node's `requestTimeout`: it bounds the time to receive a whole
 * request, headers and body, and stops counting once the request is complete, so an answer may stream for as long
 * as it needs (LLM streams last minutes). Node checks it every `connectionsCheckingInterval`, so a trickling body is
 * cut between the timeout and a tenth of it later (at most 5 s later).
 */
import Fastify, { LogController, type FastifyInstance, type RouteOptions } from 'fastify';
import { withoutRedaction, type Logger } from '../logger.ts';
import { errorBody, svcError } from '../errors.ts';
import { clientErrorHandler } from './client-error.ts';
import { sendError } from './reply-error.ts';
import { lazyRequestChildren } from './lazy-request-logger.ts';
import { RequestObserver } from './request-observer.ts';
import type { HttpMetrics } from '../metrics/http-metrics.ts';

function pathRegex(url: string): RegExp {
  const pattern = url
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${pattern}/?$`);
}

/** Node's default time to receive the headers; never longer than the whole request's. */
const HEADERS_TIMEOUT_MS = 60_000;

export interface AppOptions {
  log: Logger;
  bodyLimit: number;
  trustProxy?: boolean | string;
  requestTimeoutMs?: number;
  /** Request counts (core/metrics/); absent when metrics are off. */
  metrics?: HttpMetrics;
  /** Share of requests logged at info when they end (request-observer.ts); 0 = none. */
  requestLogSample?: number;
}

export function createApp(opts: AppOptions): FastifyInstance {
  const requestTimeout = opts.requestTimeoutMs ?? 60_000;
  const sample = opts.requestLogSample ?? 0;
  // The request line holds ids, numbers and the route alone, nothing redaction could find (logger.ts).
  const observer = new RequestObserver({ metrics: opts.metrics, log: sample > 0 && opts.log.isLevelEnabled('info') ? withoutRedaction(opts.log) : undefined, sample });
  const app = Fastify({
    loggerInstance: opts.log,
    bodyLimit: opts.bodyLimit,
    requestTimeout,
    http: {
      requestTimeout,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
      connectionsCheckingInterval: Math.min(5000, Math.max(100, Math.round(requestTimeout / 10))),
    },
    clientErrorHandler: clientErrorHandler(opts.log, requestTimeout),
    // Bad percent-encoding in the path, an over-long path parameter: fastify answers these itself unless told.
    frameworkErrors: (err, req, reply) => sendError(req, reply, err),
    // fastify's own per-request lines are off; refusals and failures are logged by sendError, and the observer
    // counts each request and writes the sampled request lines.
    logController: observer.active ? observer : new LogController({ disableRequestLogging: true }),
    trustProxy: opts.trustProxy ?? false,
    // A request reaching a closing node is refused by the hook below, in the error object with Retry-After.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Strict: no type coercion of bodies (query parameters are declared as strings and parsed by the route).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
  }) as unknown as FastifyInstance;

  lazyRequestChildren(app.log);
  app.decorateRequest('logFacts', null);

  // Which methods each path answers, to tell 405 from 404.
  const routes: { re: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const existing = routes.find((r) => r.re.source === pathRegex(route.url).source);
    if (existing) methods.forEach((m) => existing.methods.add(m));
    else routes.push({ re: pathRegex(route.url), methods: new Set(methods) });
  });

  // While the node drains, requests that still arrive on kept-alive connections go elsewhere: 503 with Retry-After
  // (the load balancer or the client retries) and the connection closed.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!closing) return;
    const e = svcError('service_unavailable', 'This node is shutting down; retry (another node or this one once restarted).', {}, { 'retry-after': '1' });
    // Not logged as a failure: refusing while draining is the plan.
    return reply.code(e.status).headers({ ...e.headers, connection: 'close' }).type('application/json; charset=utf-8').send(errorBody(e));
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
