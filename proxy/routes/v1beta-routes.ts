/**
 * The generative-language endpoints (reference §C): `GET /v1beta/models`, `GET /v1beta/models/{m}`, and
 * `POST /v1beta/models/{m}:generateContent`, `:streamGenerateContent` (SSE with `?alt=sse`, otherwise one JSON
 * array sent in pieces) and `:countTokens`. The model is named in the path. The Google SDK defaults to API version
 * `v1`, so the same calls are also answered under `/v1/models/{m}:…` (v1-routes.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { svcError } from '../../core/errors.ts';
import type { Gateway } from '../gateway.ts';
import { authenticate, buildCall, jsonBody } from '../http/provider-request.ts';
import { runCall } from '../pipeline/run-call.ts';
import { compressionOf } from '../compression/compression-service.ts';
import { runCountTokens } from '../pipeline/run-count-tokens.ts';
import { generativeModelList, modelsForKey, modelReply } from './list-models.ts';

const ACTIONS = new Set(['generateContent', 'streamGenerateContent', 'countTokens']);

/** `POST …/models/{model}:{action}`. */
export function generativeCall(gw: Gateway) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const startedAt = performance.now();
    const target = (req.params as { target: string }).target;
    const colon = target.lastIndexOf(':');
    const model = colon > 0 ? target.slice(0, colon) : '';
    const action = colon > 0 ? target.slice(colon + 1) : '';
    if (!ACTIONS.has(action)) throw svcError('route_not_found', `Unknown method "${action || target}": use :generateContent, :streamGenerateContent or :countTokens.`);
    const key = await authenticate(gw, req);
    const call = buildCall(gw, req, key, 'generative', startedAt, () => {
      if (model === '') throw svcError('model_required', 'The path must name a model: /v1beta/models/{model}:generateContent.');
      const { raw, body } = jsonBody(req);
      const stream = action === 'streamGenerateContent';
      const alt = (req.query as { alt?: unknown }).alt;
      return { op: action === 'countTokens' ? 'count' : 'generate', model, stream, jsonArray: stream && alt !== 'sse', includeUsage: false, raw, body };
    });
    call.compression = compressionOf(gw.ctx).forCall(reply.raw);
    await (call.op === 'count' ? runCountTokens(gw, call, reply) : runCall(gw, call, reply));
  };
}

export function v1betaRoutes(gw: Gateway) {
  return async (app: FastifyInstance): Promise<void> => {
    const config = { openapi: false, style: 'generative' as const };
    app.get('/models', { config }, async (req, reply) => {
      const key = await authenticate(gw, req);
      return reply.send(generativeModelList(await modelsForKey(gw, key)));
    });
    app.get('/models/:model', { config }, async (req, reply) => {
      const key = await authenticate(gw, req);
      return reply.send(await modelReply(gw, key, (req.params as { model: string }).model, 'generative'));
    });
    app.post('/models/:target', { config }, generativeCall(gw));
  };
}
