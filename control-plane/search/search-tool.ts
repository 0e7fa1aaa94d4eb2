/** MCP tool `search`: the same search as GET /api/v1/search. */
import { z } from 'zod';
import { defineTool, LIST_ARGS, listOutput, listPage, type McpTool } from '../mcp/mcp-tools.ts';
import { SEARCH_ITEM } from '../mcp/output-shapes.ts';
import type { SearchRegistry } from './search-registry.ts';
import { parseSearchTypes } from './search-routes.ts';

export function searchTool(registry: SearchRegistry): McpTool {
  return defineTool({
    name: 'search',
    title: 'Search',
    description: 'Find resources you may see (teams, tokens, webhooks, and more) by text in their name or by exact id. Items are {type, id, title, url, team}.',
    readOnly: true,
    input: {
      q: z.string().min(1).max(200).describe('Text to find (case-insensitive) or an id.'),
      type: z.string().optional().describe(`Comma-separated resource types to search (default all: ${registry.types.join(', ')}).`),
      ...LIST_ARGS,
    },
    output: listOutput(SEARCH_ITEM),
    call: ({ ctx, p }, args) => registry.search(ctx, p, args.q, listPage(args, 2), parseSearchTypes(args.type, registry.types)),
  });
}
