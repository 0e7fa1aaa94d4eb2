/**
 * The AI gateway's fastify plugin (one per node of the proxy role): the provider-style endpoints under `/v1` and
 * `/v1beta`, each scope with its own body parser (raw bytes: a same-style call forwards them untouched), error
 * handler and not-found handler answering in the caller's style (DESIGN.md §3 "Refusals").
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { svcError } from '../core/errors.ts';
import type { StyleName } from '../translators/model.ts';
import type { Gateway } from './gateway.ts';
import { sendStyleError } from './http/style-error.ts';
import { v1Routes, v1StyleOf } from './routes/v1-routes.ts';
import { v1betaRoutes } from './routes/v1beta-routes.ts';
import { compressionOf } from './compression/compression-service.ts';
import { makeSummary } from './compression/summary-call.ts';
import { panelCors } from './http/panel-cors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The wire style of a provider-style route (its refusals use that style's error shape). */
    style?: StyleName;
  }
}

function scope(styleOf: (req: FastifyRequest) => StyleName, routes: (app: FastifyInstance) => Promise<void>, panelOrigin: string | undefined) {
  return async (app: FastifyInstance): Promise<void> => {
    if (panelOrigin) panelCors(app, panelOrigin);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.setErrorHandler((err, req, reply) => sendStyleError(req, reply, styleOf(req), err));
    app.setNotFoundHandler((req, reply) =>
      sendStyleError(req, reply, styleOf(req), svcError('route_not_found', `No gateway endpoint matches ${req.method} ${req.url.split('?')[0]}.`)),
    );
    await routes(app);
  };
}

export function gatewayPlugin(gw: Gateway) {
  return async (app: FastifyInstance): Promise<void> => {
    // Compression settings are read before the first call (until then a node compresses nothing), and the
    // compression records still queued are written when the server closes.
    const compression = compressionOf(gw.ctx);
    await compression.settings.loaded();
    app.addHook('onClose', () => compression.records.drain());
    // Summaries of oldest turns are calls of this gateway (as the key named in the settings).
    compression.summaries.useMaker((keyId, model, input) => makeSummary(gw, keyId, model, input), () => gw.prices());
    app.addHook('onClose', () => compression.summaries.close());
    const panelOrigin = gw.ctx.config.panelOrigin;
    await app.register(scope(v1StyleOf, v1Routes(gw), panelOrigin), { prefix: '/v1' });
    await app.register(scope(() => 'generative', v1betaRoutes(gw), panelOrigin), { prefix: '/v1beta' });
  };
}
