/**
 * /api/v1/prices: what the gateway charges per model, in USD per million tokens. Each item shows the list price kept
 * in the repository (core/ai/list-prices.ts), the instance's override (table model_prices) and the effective price
 * the proxy uses (priceOf). Superusers set and remove overrides; every authenticated caller reads. Every change
 * drops PRICES_CACHE on every node.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { requireSuperuser } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { rfc3339 } from '../../core/clock.ts';
import { encodeCursor } from '../../core/cursor.ts';
import { parseListParams, LIST_QUERY } from '../../core/http/list.ts';
import { PRICES_CACHE } from '../../core/ai/cache-names.ts';
import { LIST_PRICES, LIST_PRICES_AS_OF } from '../../core/ai/list-prices.ts';
import { modelNameProblem, modelPatternProblem } from '../../core/ai/model-pattern.ts';
import { listPriceOf, priceOf, type Price, type ResolvedPrice } from '../../core/ai/price-of.ts';
import { overrideOf, type PriceRow } from '../../core/ai/price-overrides.ts';
import { principal } from '../auth-hook.ts';
import { loadKnownModels, unknownModelWarnings } from './known-models.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { CHANGED_PRICE, PRICE_ITEM } from './ai-schemas.ts';

const MAX_PRICE = 10_000;
const PRICE = { type: 'number', minimum: 0, maximum: MAX_PRICE } as const;
const MODEL_PARAMS = { type: 'object', properties: { model: { type: 'string' } }, required: ['model'] } as const;

const priceFields = (p: Price) => ({ input_per_mtok: p.input, output_per_mtok: p.output, cache_read_per_mtok: p.cacheRead, cache_write_per_mtok: p.cacheWrite });
const effectiveView = (p: ResolvedPrice | null) => (p ? { ...priceFields(p), source: p.source, matched: p.matched } : null);

export function pricesRoutes(app: FastifyInstance, ctx: AppContext): void {
  const readOverrides = async (): Promise<PriceRow[]> => (await ctx.db.query<PriceRow>('SELECT * FROM model_prices ORDER BY model')).rows;

  const itemOf = (model: string, rows: PriceRow[]) => {
    const row = rows.find((r) => r.model === model);
    const list = LIST_PRICES.find((p) => p.model === model) ?? listPriceOf(model);
    return {
      model,
      list: list ? priceFields(list) : null,
      override: row ? { ...priceFields(overrideOf(row)), updated_at: rfc3339(row.updated_at) } : null,
      effective: effectiveView(priceOf(model, rows.map(overrideOf))),
    };
  };

  app.get('/api/v1/prices', {
    schema: {
      tags: ['ai'],
      summary: `Prices per model: list price (as of ${LIST_PRICES_AS_OF}), override and effective price, USD per million tokens`,
      querystring: { type: 'object', properties: { ...LIST_QUERY, model: { type: 'string', description: 'Show the one price that applies to this model id.' } } },
      response: { 200: listOf(PRICE_ITEM) },
    },
  }, async (req) => {
    principal(req);
    const q = req.query as { limit?: string; cursor?: string; model?: string };
    const { limit, after } = parseListParams(q, 1);
    const rows = await readOverrides();
    if (q.model !== undefined) {
      const problem = modelNameProblem(q.model);
      if (problem) throw svcError('validation_failed', `The model "${q.model.slice(0, 200)}" ${problem}.`, { field: 'model' });
      return { items: [itemOf(q.model, rows)], next_cursor: null };
    }
    const names = [...new Set([...LIST_PRICES.map((p) => p.model), ...rows.map((r) => r.model)])].sort();
    const from = after ? names.filter((n) => n > String(after[0])) : names;
    const page = from.slice(0, limit);
    return { items: page.map((m) => itemOf(m, rows)), next_cursor: from.length > limit ? encodeCursor([page[page.length - 1]]) : null };
  });

  app.put('/api/v1/prices/:model', {
    schema: {
      tags: ['ai'],
      summary: 'Set the price of a model id or * pattern (superusers); cache prices default to the list price, else the input price',
      params: MODEL_PARAMS,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['input_per_mtok', 'output_per_mtok'],
        properties: { input_per_mtok: PRICE, output_per_mtok: PRICE, cache_read_per_mtok: PRICE, cache_write_per_mtok: PRICE },
      },
      response: { 200: CHANGED_PRICE, 201: CHANGED_PRICE },
    },
  }, async (req, reply) => {
    requireSuperuser(principal(req));
    const model = (req.params as { model: string }).model;
    const problem = modelPatternProblem(model);
    if (problem) throw svcError('validation_failed', `The model "${model.slice(0, 200)}" ${problem}.`, { field: 'model' });
    const b = req.body as { input_per_mtok: number; output_per_mtok: number; cache_read_per_mtok?: number; cache_write_per_mtok?: number };
    const list = listPriceOf(model);
    const cacheRead = b.cache_read_per_mtok ?? list?.cacheRead ?? b.input_per_mtok;
    const cacheWrite = b.cache_write_per_mtok ?? list?.cacheWrite ?? b.input_per_mtok;
    const r = await ctx.db.query<PriceRow & { inserted: boolean }>(
      `INSERT INTO model_prices (model, input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_per_mtok, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (model) DO UPDATE SET input_per_mtok = EXCLUDED.input_per_mtok, output_per_mtok = EXCLUDED.output_per_mtok,
         cache_read_per_mtok = EXCLUDED.cache_read_per_mtok, cache_write_per_mtok = EXCLUDED.cache_write_per_mtok, updated_at = EXCLUDED.updated_at
       RETURNING *, (xmax = 0) AS inserted`,
      [model, b.input_per_mtok, b.output_per_mtok, cacheRead, cacheWrite, new Date(ctx.clock.now())],
    );
    await ctx.caches.invalidate(PRICES_CACHE);
    const warnings = unknownModelWarnings([model], await loadKnownModels(ctx.db), 'model');
    return reply.code(r.rows[0].inserted ? 201 : 200).send({ ...itemOf(model, await readOverrides()), ...(warnings.length ? { warnings } : {}) });
  });

  app.delete('/api/v1/prices/:model', { schema: { tags: ['ai'], summary: "Remove a model's price override (superusers); the list price applies again", params: MODEL_PARAMS, response: { 200: PRICE_ITEM } } }, async (req) => {
    requireSuperuser(principal(req));
    const model = (req.params as { model: string }).model;
    const r = await ctx.db.query('DELETE FROM model_prices WHERE model = $1', [model]);
    if (r.rowCount === 0) throw svcError('not_found', `No price override exists for "${model}".`);
    await ctx.caches.invalidate(PRICES_CACHE);
    return itemOf(model, await readOverrides());
  });
}
