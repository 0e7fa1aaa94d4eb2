/** MCP tools `list_teams` and `list_tokens`: the same lists as GET /api/v1/teams and GET /api/v1/tokens. */
import { listTokens } from '../identity/list-tokens.ts';
import { listTeams } from '../teams/list-teams.ts';
import { LIST_ARGS, listPage, type McpTool } from './mcp-tools.ts';

export const listTeamsTool: McpTool = {
  name: 'list_teams',
  title: 'List teams',
  description: 'Teams you can see, by name, with their limits.',
  readOnly: true,
  inputSchema: { type: 'object', additionalProperties: false, properties: { ...LIST_ARGS } },
  call: (ctx, p, args) => listTeams(ctx, p, listPage(args, 1)),
};

export const listTokensTool: McpTool = {
  name: 'list_tokens',
  title: 'List API tokens',
  description: 'Your API tokens, newest first (name, scope, hint, expiry, last use; never the secret).',
  readOnly: true,
  inputSchema: { type: 'object', additionalProperties: false, properties: { ...LIST_ARGS } },
  call: (ctx, p, args) => listTokens(ctx, p, {}, listPage(args, 2)),
};
