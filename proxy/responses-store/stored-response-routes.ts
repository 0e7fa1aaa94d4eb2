/**
 * `GET /v1/responses/{id}`, `GET /v1/responses/{id}/input_items` and `DELETE /v1/responses/{id}`: the key's stored
 * responses (core/ai/stored-responses.ts), in the responses API's shapes. Another key's response is 404 `not_found`
 * as if absent; an expired one is 404 `not_found` saying it expired.
 * @see https://platform.openai.com/docs/api-reference/responses/get
 */
import type { FastifyInstance } from 'fastify';
import { svcError } from '../../core/errors.ts';
import { ResponseStore, type StoredResponse } from '../../core/ai/stored-responses.ts';
import type { Gateway } from '../gateway.ts';
import { authenticate } from '../http/provider-request.ts';

const ID_PARAMS = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 200 } }, required: ['id'] } as const;

async function ownResponse(store: ResponseStore, keyId: string, id: string, now: Date): Promise<StoredResponse> {
  const stored = await store.get(keyId, id);
  if (!stored) throw svcError('not_found', `No response ${id} exists for this key.`);
  if (stored.expiresAt.getTime() <= now.getTime()) throw svcError('not_found', `Response ${id} expired at ${stored.expiresAt.toISOString()}.`);
  return stored;
}

export function storedResponseRoutes(gw: Gateway, store: ResponseStore) {
  const now = () => new Date(gw.ctx.clock.now());
  return (app: FastifyInstance): void => {
    const config = { openapi: false, style: 'responses' } as const;

    app.get('/responses/:id', { config, schema: { params: ID_PARAMS } }, async (req) => {
      const key = await authenticate(gw, req);
      return (await ownResponse(store, key.id, (req.params as { id: string }).id, now())).response;
    });

    app.get('/responses/:id/input_items', { config, schema: { params: ID_PARAMS } }, async (req) => {
      const key = await authenticate(gw, req);
      const { input } = await ownResponse(store, key.id, (req.params as { id: string }).id, now());
      // Newest first, as the responses API lists them by default; one page holds them all.
      const data = [...input].reverse();
      return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: false };
    });

    app.delete('/responses/:id', { config, schema: { params: ID_PARAMS } }, async (req) => {
      const key = await authenticate(gw, req);
      const id = (req.params as { id: string }).id;
      if (!(await store.delete(id, key.id))) throw svcError('not_found', `No response ${id} exists for this key.`);
      return { id, object: 'response.deleted', deleted: true };
    });
  };
}
