/**
 * /api/v1/keys: gateway keys. Create (the `sk-svc-…` secret is in the answer once), list, show, change, delete.
 * Every change drops the key from the proxy nodes' key cache (GATEWAY_KEYS_CACHE, keyed by the key's hash).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { requireTeam } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { LIST_QUERY, listEnvelope, parseListParams } from '../../core/http/list.ts';
import { GATEWAY_KEYS_CACHE } from '../../core/ai/cache-names.ts';
import { KEY_LIMITS_SCHEMA, normaliseKeyLimits, type KeyLimitName } from '../../core/ai/key-limits.ts';
import { principal } from '../auth-hook.ts';
import { optionalTeamOfRequest, requireTeamOfRequest } from '../team-of-request.ts';
import { LOG_BODIES, createKey, keyView, loadVisibleKey, visibleKeysWhere, type KeyRow, type LogBodies } from './key-service.ts';
import { checkModelList, MODEL_LIST_SCHEMA } from './model-list-input.ts';
import { loadKnownModels, unknownModelWarnings } from './known-models.ts';
import { applyLogBodiesChange } from '../calls/call-bodies.ts';
import { COMPRESSION_MODES, type CompressionMode } from '../../core/ai/compression-settings.ts';
import { deleteKeyResponses } from '../../core/ai/stored-responses.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { CHANGED_KEY, CREATED_KEY, DELETED_KEY, KEY_VIEW } from './ai-schemas.ts';

const ID_PARAMS = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const MAX_KEY_MODELS = 100;
const NAME = { type: 'string', minLength: 1, maxLength: 100 } as const;
const FIELDS = {
  models: { ...MODEL_LIST_SCHEMA, description: 'Allowed model ids, alias names or * patterns; empty = every model.' },
  limits: KEY_LIMITS_SCHEMA,
  log_bodies: { type: 'string', enum: [...LOG_BODIES], description: 'Keep request and response bodies: off, or for 1d, 7d or 30d.' },
  compression: {
    type: ['string', 'null'], enum: [...COMPRESSION_MODES, null],
    description: "Compression of this key's calls: off, audit-only or on; null inherits. It can only lower the team's and the instance's mode.",
  },
  response_store_ttl: { type: 'string', pattern: '^(off|([1-9]|[12][0-9]|30)d)$', description: 'How long stored responses of the responses endpoint are kept: 1d to 30d (default 1d), or off to keep none (and delete what was kept).' },
} as const;

type LimitsInput = Partial<Record<KeyLimitName, number | null>>;

function cleanName(name: string): string {
  const n = name.trim();
  if (n === '') throw svcError('validation_failed', 'The key name must not be blank.', { field: 'name' });
  return n;
}

export function keysRoutes(app: FastifyInstance, ctx: AppContext): void {
  const warningsFor = async (models: string[]): Promise<string[]> =>
    models.length === 0 ? [] : unknownModelWarnings(models, await loadKnownModels(ctx.db), 'models');

  app.post('/api/v1/keys', {
    schema: {
      tags: ['ai'],
      summary: 'Create a gateway key in the team (X-Svc-Team or ?team=); the sk-svc- secret is in the answer once',
      querystring: { type: 'object', properties: { team: { type: 'string' } } },
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: { name: NAME, own: { type: 'boolean', default: false, description: 'The key belongs to you inside the team (visible to you and team admins).' }, ...FIELDS },
      },
      response: { 201: CREATED_KEY },
    },
  }, async (req, reply) => {
    const p = principal(req);
    const teamId = await requireTeamOfRequest(ctx.db, req);
    requireTeam(p, teamId, 'write');
    const b = req.body as { name: string; own: boolean; models?: string[]; limits?: LimitsInput; log_bodies?: LogBodies; compression?: CompressionMode | null; response_store_ttl?: string };
    if (b.own && !p.userId) throw svcError('validation_failed', 'The admin token belongs to no user, so it cannot create an own key; create a team key or use a user token.', { field: 'own' });
    const models = checkModelList(b.models ?? [], 'models', { patterns: true, max: MAX_KEY_MODELS });
    const { row, secret } = await createKey(ctx, {
      teamId,
      ownerUserId: b.own ? p.userId : null,
      name: cleanName(b.name),
      models,
      limits: normaliseKeyLimits(b.limits ?? {}),
      logBodies: b.log_bodies ?? 'off',
      compression: b.compression ?? null,
      responseStoreTtl: b.response_store_ttl ?? '1d',
      createdBy: p.userId,
    });
    await ctx.caches.invalidate(GATEWAY_KEYS_CACHE, row.key_hash);
    const warnings = await warningsFor(models);
    return reply.code(201).send({ ...keyView(row), key: secret, ...(warnings.length ? { warnings } : {}) });
  });

  app.get('/api/v1/keys', {
    schema: {
      tags: ['ai'],
      summary: 'List the gateway keys you can see (narrow with team; own=true for yours only)',
      querystring: { type: 'object', properties: { ...LIST_QUERY, team: { type: 'string' }, own: { type: 'string', enum: ['true', 'false'] } } },
      response: { 200: listOf(KEY_VIEW) },
    },
  }, async (req) => {
    const p = principal(req);
    const q = req.query as { limit?: string; cursor?: string; own?: string };
    const { limit, after } = parseListParams(q, 2);
    const teamId = await optionalTeamOfRequest(ctx.db, req);
    if (teamId) requireTeam(p, teamId, 'read');
    const params: unknown[] = [limit + 1];
    const where = [visibleKeysWhere(p, params)];
    if (teamId) where.push(`team_id = $${params.push(teamId)}`);
    if (q.own === 'true') where.push(`owner_user_id = $${params.push(p.userId ?? '')}`);
    if (q.own === 'false') where.push('owner_user_id IS NULL');
    if (after) where.push(`(created_at, id) < ($${params.push(after[0])}::timestamptz, $${params.push(after[1])})`);
    const r = await ctx.db.query<KeyRow>(`SELECT * FROM gateway_keys WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $1`, params);
    return listEnvelope(r.rows, limit, (k) => [k.created_at.toISOString(), k.id], keyView);
  });

  app.get('/api/v1/keys/:id', { schema: { tags: ['ai'], summary: 'Show a gateway key (never its secret)', params: ID_PARAMS, response: { 200: KEY_VIEW } } }, async (req) => {
    return keyView(await loadVisibleKey(ctx.db, principal(req), (req.params as { id: string }).id));
  });

  app.patch('/api/v1/keys/:id', {
    schema: {
      tags: ['ai'],
      summary: 'Change a gateway key: name, models, limits (replaces the whole object), log_bodies, compression, disabled',
      params: ID_PARAMS,
      body: { type: 'object', additionalProperties: false, properties: { name: NAME, ...FIELDS, disabled: { type: 'boolean' } } },
      response: { 200: CHANGED_KEY },
    },
  }, async (req) => {
    const p = principal(req);
    const k = await loadVisibleKey(ctx.db, p, (req.params as { id: string }).id);
    requireTeam(p, k.team_id, 'write');
    const b = req.body as { name?: string; models?: string[]; limits?: LimitsInput; log_bodies?: LogBodies; compression?: CompressionMode | null; response_store_ttl?: string; disabled?: boolean };
    const sets: string[] = [];
    const params: unknown[] = [k.id];
    if (b.name !== undefined) sets.push(`name = $${params.push(cleanName(b.name))}`);
    if (b.models !== undefined) sets.push(`allowed_models = $${params.push(checkModelList(b.models, 'models', { patterns: true, max: MAX_KEY_MODELS }))}`);
    if (b.limits !== undefined) sets.push(`limits = $${params.push(JSON.stringify(normaliseKeyLimits(b.limits)))}`);
    if (b.log_bodies !== undefined) sets.push(`log_bodies = $${params.push(b.log_bodies)}`);
    if (b.compression !== undefined) sets.push(`compression = $${params.push(b.compression)}`);
    if (b.response_store_ttl !== undefined) sets.push(`response_store_ttl = $${params.push(b.response_store_ttl)}`);
    if (b.disabled !== undefined) sets.push(`disabled = $${params.push(b.disabled)}`);
    if (sets.length === 0) return keyView(k);
    sets.push(`updated_at = $${params.push(new Date(ctx.clock.now()))}`);
    const r = await ctx.db.query<KeyRow>(`UPDATE gateway_keys SET ${sets.join(', ')} WHERE id = $1 AND deleted_at IS NULL RETURNING *`, params);
    if (!r.rows[0]) throw svcError('not_found', `Gateway key ${k.id} was not found.`);
    await ctx.caches.invalidate(GATEWAY_KEYS_CACHE, k.key_hash);
    if (b.log_bodies !== undefined && b.log_bodies !== k.log_bodies) await applyLogBodiesChange(ctx.db, k.id, b.log_bodies);
    if (b.response_store_ttl === 'off') await deleteKeyResponses(ctx.db, k.id);
    const warnings = b.models !== undefined ? await warningsFor(b.models) : [];
    return { ...keyView(r.rows[0]), ...(warnings.length ? { warnings } : {}) };
  });

  app.delete('/api/v1/keys/:id', { schema: { tags: ['ai'], summary: 'Delete a gateway key; it stops working at once on every node', params: ID_PARAMS, response: { 200: DELETED_KEY } } }, async (req) => {
    const p = principal(req);
    const k = await loadVisibleKey(ctx.db, p, (req.params as { id: string }).id);
    requireTeam(p, k.team_id, 'write');
    const now = new Date(ctx.clock.now());
    const r = await ctx.db.query<KeyRow>('UPDATE gateway_keys SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL RETURNING *', [k.id, now]);
    await ctx.caches.invalidate(GATEWAY_KEYS_CACHE, k.key_hash);
    if (!r.rows[0]) throw svcError('not_found', `Gateway key ${k.id} was not found.`);
    await deleteKeyResponses(ctx.db, k.id);
    return { ...keyView(r.rows[0]), deleted_at: now.toISOString() };
  });
}
