/** GET /api/v1/search?q=: every resource type the caller may see, in the list envelope with one item shape. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { svcError } from '../../core/errors.ts';
import { LIST_QUERY, parseListParams } from '../../core/http/list.ts';
import { principal } from '../auth-hook.ts';
import type { SearchRegistry } from './search-registry.ts';
import { listOf, object, STRING_OR_NULL } from '../../core/http/response-schema.ts';

/** Parses `type=team,token`; unknown types are refused so a typo does not silently return nothing. */
export function parseSearchTypes(raw: string | undefined, known: readonly string[]): string[] | undefined {
  if (raw === undefined || raw === '') return undefined;
  const types = raw.split(',').map((t) => t.trim()).filter(Boolean);
  const unknown = types.filter((t) => !known.includes(t));
  if (unknown.length) throw svcError('validation_failed', `Unknown search types: ${unknown.join(', ')}. Known: ${known.join(', ')}.`, { unknown });
  return types;
}

export function searchRoutes(app: FastifyInstance, ctx: AppContext, registry: SearchRegistry): void {
  app.get('/api/v1/search', {
    schema: {
      tags: ['search'],
      summary: 'Search every resource you may see; items are {type, id, title, url, team}',
      querystring: {
        type: 'object',
        required: ['q'],
        properties: {
          ...LIST_QUERY,
          q: { type: 'string', minLength: 1, maxLength: 200, description: 'Text found anywhere in a name (case-insensitive), or an exact id.' },
          type: { type: 'string', description: 'Comma-separated resource types to search (default: all).' },
        },
      },
      response: {
        200: listOf(object({ type: { type: 'string' }, id: { type: 'string' }, title: { type: 'string' }, url: { type: 'string' }, team: STRING_OR_NULL })),
      },
    },
  }, async (req) => {
    const q = req.query as { q: string; type?: string; limit?: string; cursor?: string };
    const types = parseSearchTypes(q.type, registry.types);
    return registry.search(ctx, principal(req), q.q.trim() || q.q, parseListParams(q, 2), types);
  });
}
