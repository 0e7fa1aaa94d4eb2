/**
 * The `/v1` endpoints of two styles on one prefix: chat-completions (`POST /v1/chat/completions`) and messages
 * (`POST /v1/messages`, `POST /v1/messages/count_tokens`), plus `GET /v1/models`, which answers in the messages
 * shape when the request carries `anthropic-version` (the Anthropic SDK always sends it) and in the chat shape
 * otherwise. Refusals and unknown paths answer in the caller's style.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StyleName } from '../../translators/model.ts';
import type { Gateway } from '../gateway.ts';
import { authenticate, buildCall, jsonBody, requireModel } from '../http/provider-request.ts';
import { runCall } from '../pipeline/run-call.ts';
import { runCountTokens } from '../pipeline/run-count-tokens.ts';
import { chatModelList, messagesModelList, modelsForKey } from './list-models.ts';

/** The style of a /v1 request that matched no route (or failed before its route was known). */
export function v1StyleOf(req: FastifyRequest): StyleName {
  const routeStyle = (req.routeOptions?.config as { style?: StyleName } | undefined)?.style;
  if (routeStyle) return routeStyle;
  return req.headers['anthropic-version'] !== undefined || req.headers['x-api-key'] !== undefined ? 'messages' : 'chat';
}

export function v1Routes(gw: Gateway) {
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
      await runCall(gw, call, reply);
    });

    for (const [url, op] of [['/messages', 'generate'], ['/messages/count_tokens', 'count']] as const) {
      app.post(url, { config: { openapi: false, style: 'messages' } }, async (req, reply) => {
        const startedAt = performance.now();
        const key = await authenticate(gw, req);
        const call = buildCall(gw, req, key, 'messages', startedAt, () => {
          const { raw, body } = jsonBody(req);
          const stream = op === 'generate' && body.stream === true;
          return { op, model: requireModel(body.model), stream, jsonArray: false, includeUsage: false, raw, body };
        });
        await (op === 'count' ? runCountTokens(gw, call, reply) : runCall(gw, call, reply));
      });
    }

    app.get('/models', { config: { openapi: false } }, async (req, reply) => {
      const key = await authenticate(gw, req);
      const models = await modelsForKey(gw, key);
      return reply.send(v1StyleOf(req) === 'messages' ? messagesModelList(models) : chatModelList(models));
    });
  };
}
