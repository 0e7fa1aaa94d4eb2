/**
 * /api/v1/aliases: model aliases, a name that expands to an ordered list of 1 to 10 model ids. The proxy tries them
 * in order while one answers 429, 404 or 5xx before anything reached the client. Aliases do not nest: an entry may
 * not be another alias's name (so there are no cycles); it may be the alias's own name, which then means the real
 * model of that name (`gpt-4o` → [`gpt-4o`, `gpt-4.1`] falls back from the model to another).
 * Superusers write, every authenticated caller reads. Every change drops ALIASES_CACHE on every node.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { requireSuperuser } from '../../core/auth/principal.ts';
import { svcError } from '../../core/errors.ts';
import { rfc3339 } from '../../core/clock.ts';
import { modelNameProblem } from '../../core/ai/model-pattern.ts';
import { LIST_QUERY, listEnvelope, parseListParams } from '../../core/http/list.ts';
import { ALIASES_CACHE } from '../../core/ai/cache-names.ts';
import { principal } from '../auth-hook.ts';
import { checkModelList, MODEL_LIST_SCHEMA } from './model-list-input.ts';
import { loadKnownModels, unknownModelWarnings } from './known-models.ts';
import { listOf } from '../../core/http/response-schema.ts';
import { ALIAS_VIEW, CHANGED_ALIAS, DELETED_ALIAS } from './ai-schemas.ts';

export const MAX_ALIAS_MODELS = 10;

interface AliasRow {
  name: string;
  models: string[];
  created_at: Date;
  updated_at: Date;
}

const aliasView = (a: AliasRow) => ({ name: a.name, models: a.models, created_at: rfc3339(a.created_at), updated_at: rfc3339(a.updated_at) });
const NAME_PARAMS = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

function checkAliasName(name: string): string {
  const problem = modelNameProblem(name);
  if (problem) throw svcError('validation_failed', `The alias name "${name.slice(0, 200)}" ${problem}${name.includes('*') ? ' (an alias name cannot be a pattern)' : ''}.`, { field: 'name' });
  return name;
}

export function aliasesRoutes(app: FastifyInstance, ctx: AppContext): void {
  const load = async (name: string): Promise<AliasRow> => {
    const r = await ctx.db.query<AliasRow>('SELECT * FROM model_aliases WHERE name = $1', [name]);
    if (!r.rows[0]) throw svcError('not_found', `No alias is named "${name}".`);
    return r.rows[0];
  };

  app.put('/api/v1/aliases/:name', {
    schema: {
      tags: ['ai'],
      summary: 'Create or replace a model alias (superusers)',
      params: NAME_PARAMS,
      body: { type: 'object', additionalProperties: false, required: ['models'], properties: { models: { ...MODEL_LIST_SCHEMA, description: 'Model ids in the order they are tried (1 to 10).' } } },
      response: { 200: CHANGED_ALIAS, 201: CHANGED_ALIAS },
    },
  }, async (req, reply) => {
    requireSuperuser(principal(req));
    const name = checkAliasName((req.params as { name: string }).name);
    const models = checkModelList((req.body as { models: string[] }).models, 'models', { patterns: false, max: MAX_ALIAS_MODELS, min: 1 });
    const now = new Date(ctx.clock.now());
    const { row, created } = await ctx.db.tx(async (q) => {
      // Serialise alias writes so that two concurrent PUTs cannot build a nesting the checks below would refuse.
      await q.query('LOCK TABLE model_aliases IN SHARE ROW EXCLUSIVE MODE');
      const nested = await q.query<{ name: string }>('SELECT name FROM model_aliases WHERE name = ANY($1) AND name <> $2 ORDER BY name', [models, name]);
      if (nested.rows[0]) {
        const other = nested.rows[0].name;
        throw svcError('validation_failed', `"${other}" is itself an alias; aliases do not nest, so list the models of "${other}" instead.`, { field: 'models', value: other });
      }
      const user = await q.query<{ name: string }>('SELECT name FROM model_aliases WHERE $1 = ANY(models) AND name <> $1 ORDER BY name LIMIT 1', [name]);
      if (user.rows[0]) {
        throw svcError('validation_failed', `The alias "${user.rows[0].name}" lists "${name}" as a model; making "${name}" an alias would nest aliases. Change "${user.rows[0].name}" first.`, { field: 'name' });
      }
      const r = await q.query<AliasRow & { inserted: boolean }>(
        `INSERT INTO model_aliases (name, models, created_at, updated_at) VALUES ($1, $2, $3, $3)
         ON CONFLICT (name) DO UPDATE SET models = EXCLUDED.models, updated_at = EXCLUDED.updated_at
         RETURNING *, (xmax = 0) AS inserted`,
        [name, models, now],
      );
      return { row: r.rows[0], created: r.rows[0].inserted };
    });
    await ctx.caches.invalidate(ALIASES_CACHE);
    const warnings = unknownModelWarnings(models.filter((m) => m !== name), await loadKnownModels(ctx.db), 'models');
    return reply.code(created ? 201 : 200).send({ ...aliasView(row), ...(warnings.length ? { warnings } : {}) });
  });

  app.get('/api/v1/aliases', { schema: { tags: ['ai'], summary: 'List model aliases', querystring: { type: 'object', properties: LIST_QUERY }, response: { 200: listOf(ALIAS_VIEW) } } }, async (req) => {
    principal(req);
    const { limit, after } = parseListParams(req.query as Record<string, string>, 1);
    const r = await ctx.db.query<AliasRow>(
      `SELECT * FROM model_aliases ${after ? 'WHERE name > $2' : ''} ORDER BY name LIMIT $1`,
      after ? [limit + 1, after[0]] : [limit + 1],
    );
    return listEnvelope(r.rows, limit, (a) => [a.name], aliasView);
  });

  app.get('/api/v1/aliases/:name', { schema: { tags: ['ai'], summary: 'Show a model alias', params: NAME_PARAMS, response: { 200: ALIAS_VIEW } } }, async (req) => {
    principal(req);
    return aliasView(await load((req.params as { name: string }).name));
  });

  app.delete('/api/v1/aliases/:name', { schema: { tags: ['ai'], summary: 'Delete a model alias (superusers)', params: NAME_PARAMS, response: { 200: DELETED_ALIAS } } }, async (req) => {
    requireSuperuser(principal(req));
    const name = (req.params as { name: string }).name;
    const r = await ctx.db.query<AliasRow>('DELETE FROM model_aliases WHERE name = $1 RETURNING *', [name]);
    if (!r.rows[0]) throw svcError('not_found', `No alias is named "${name}".`);
    await ctx.caches.invalidate(ALIASES_CACHE);
    return { ...aliasView(r.rows[0]), deleted: true };
  });
}
