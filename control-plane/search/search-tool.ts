/** MCP tool `search`: the same search as GET /api/v1/search. */
import { LIST_ARGS, listPage, type McpTool } from '../mcp/mcp-tools.ts';
import type { SearchRegistry } from './search-registry.ts';
import { parseSearchTypes } from './search-routes.ts';

export function searchTool(registry: SearchRegistry): McpTool {
  return {
    name: 'search',
    title: 'Search',
    description: 'Find resources you may see (teams, tokens, webhooks, and more) by text in their name or by exact id. Items are {type, id, title, url, team}.',
    readOnly: true,
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['q'],
      properties: {
        q: { type: 'string', minLength: 1, maxLength: 200, description: 'Text to find (case-insensitive) or an id.' },
        type: { type: 'string', description: 'Comma-separated resource types to search (default: all).' },
        ...LIST_ARGS,
      },
    },
    call: (ctx, p, args) => registry.search(ctx, p, String(args.q), listPage(args, 2), parseSearchTypes(args.type as string | undefined, registry.types)),
  };
}
