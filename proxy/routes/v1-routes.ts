/**
 * The `/v1` endpoints of four styles on one prefix: chat-completions (`POST /v1/chat/completions`), responses
 * (`POST /v1/responses`: Codex CLI, the openai SDK's `responses.create`), messages (`POST /v1/messages`,
 * `POST /v1/messages/count_tokens`) and, because the Google SDK defaults to API version v1, generative-language
 * (`POST /v1/models/{m}:generateContent` …). `GET /v1/models` (and `/v1/models/{id}`) answer in the messages shape
 * when the request carries `anthropic-version` (the Anthropic SDK always sends it), in the generative shape when
 * the key came as `x-goog-api-key` or `?key=`, and in the chat shape otherwise (the openai SDK lists models that way
 * for chat and responses clients alike). Refusals and unknown paths answer in the caller's style, told the same way
 * (any path under `/v1/responses` in the responses shape).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StyleName } from '../../translators/model.ts';
import type { Gateway } from '../gateway.ts';
import { authenticate, buildCall, jsonBody, requireModel } from '../http/provider-request.ts';
import { runCall } from '../pipeline/run-call.ts';
import { compressionOf } from '../compression/compression-service.ts';
import { runCountTokens } from '../pipeline/run-count-tokens.ts';
import { modelListOf, modelReply, modelsForKey } from './list-models.ts';
import { statelessResponsesWarnings } from './stateless-responses-warnings.ts';
import { ResponseStore, storeTtlMs, type StoredItem } from '../../core/ai/stored-responses.ts';
import { expandStoredReferences } from '../responses-store/expand-references.ts';
import { tapStoredResponse } from '../responses-store/store-tap.ts';
import { storedResponseRoutes } from '../responses-store/stored-response-routes.ts';
import { generativeCall } from './v1beta-routes.ts';

/** The style of a /v1 request that matched no route (or failed before its route was known). */
export function v1StyleOf(req: FastifyRequest): StyleName {
  const routeStyle = (req.routeOptions?.config as { style?: StyleName } | undefined)?.style;
  if (routeStyle) return routeStyle;
  // Any other path under /v1/responses (…/cancel: the gateway runs no background responses) answers in that style.
  if (req.url.startsWith('/v1/responses')) return 'responses';
  const h = req.headers;
  if (h['anthropic-version'] !== undefined || h['x-api-key'] !== undefined) return 'messages';
  if (h['x-goog-api-key'] !== undefined || (req.query as { key?: unknown } | undefined)?.key !== undefined) return 'generative';
  return 'chat';
}

export function v1Routes(gw: Gateway) {
  const responses = new ResponseStore(gw.ctx.db);
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/chat/completions', { config: { openapi: false, style: 'chat' } }, async (req, reply) => {
      const startedAt = performance.now();
      const key = await authenticate(gw, req);
      const call = buildCall(gw, req, key, 'chat', startedAt, () => {
        const { raw, body } = jsonBody(req);
        const stream = body.stream === true;
        const so = body.stream_options as { include_usage?: unknown } | undefined;
        return { op: 'generate', model: requireModel(body.model), stream, jsonArray: false, includeUsage: stream && so?.include_usage === true, raw, body };
      });
      call.compression = compressionOf(gw.ctx).forCall(reply.raw);
      await runCall(gw, call, reply);
    });

    app.post('/responses', { config: { openapi: false, style: 'responses' } }, async (req, reply) => {
      const startedAt = performance.now();
      const key = await authenticate(gw, req);
      // Stored responses (docs/gateway.md): references are expanded before the call is read, and the answer's
      // Response is kept when the request asks for it (store defaults to true) and the key keeps responses.
      const ttlMs = storeTtlMs(key.responseStoreTtl);
      let request: { raw: Buffer; body: Record<string, unknown>; input: StoredItem[] } | undefined;
      let failure: unknown;
      try {
        const { raw, body } = jsonBody(req);
        const expanded = await expandStoredReferences(responses, key.id, ttlMs > 0, body, new Date(gw.ctx.clock.now()));
        request = { raw: expanded.changed ? Buffer.from(JSON.stringify(expanded.body)) : raw, body: expanded.body, input: expanded.input };
      } catch (err) {
        failure = err;
      }
      const call = buildCall(gw, req, key, 'responses', startedAt, () => {
        if (!request) throw failure;
        const { raw, body } = request;
        const model = requireModel(body.model);
        const warnings = statelessResponsesWarnings(body, ttlMs > 0);
        return { op: 'generate', model, stream: body.stream === true, jsonArray: false, includeUsage: false, raw, body, warnings };
      });
      if (ttlMs > 0 && request && request.body.store !== false) {
        const input = request.input;
        tapStoredResponse(reply.raw, (response) => {
          const createdAt = new Date(gw.ctx.clock.now());
          return responses.save({ id: response.id, keyId: key.id, createdAt, expiresAt: new Date(createdAt.getTime() + ttlMs), input, response });
        }, gw.ctx.log);
      }
      call.compression = compressionOf(gw.ctx).forCall(reply.raw);
      await runCall(gw, call, reply);
    });
    storedResponseRoutes(gw, responses)(app);

    for (const [url, op] of [['/messages', 'generate'], ['/messages/count_tokens', 'count']] as const) {
      app.post(url, { config: { openapi: false, style: 'messages' } }, async (req, reply) => {
        const startedAt = performance.now();
        const key = await authenticate(gw, req);
        const call = buildCall(gw, req, key, 'messages', startedAt, () => {
          const { raw, body } = jsonBody(req);
          const stream = op === 'generate' && body.stream === true;
          return { op, model: requireModel(body.model), stream, jsonArray: false, includeUsage: false, raw, body };
        });
        call.compression = compressionOf(gw.ctx).forCall(reply.raw);
        await (op === 'count' ? runCountTokens(gw, call, reply) : runCall(gw, call, reply));
      });
    }

    app.get('/models', { config: { openapi: false } }, async (req, reply) => {
      const key = await authenticate(gw, req);
      return reply.send(modelListOf(v1StyleOf(req), await modelsForKey(gw, key)));
    });

    app.get('/models/:model', { config: { openapi: false } }, async (req, reply) => {
      const key = await authenticate(gw, req);
      return reply.send(await modelReply(gw, key, (req.params as { model: string }).model, v1StyleOf(req)));
    });

    app.post('/models/:target', { config: { openapi: false, style: 'generative' } }, generativeCall(gw));
  };
}
