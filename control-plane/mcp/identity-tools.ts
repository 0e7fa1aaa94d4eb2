/** MCP tools `list_teams` and `list_tokens`: the same lists as GET /api/v1/teams and GET /api/v1/tokens. */
import { listTokens } from '../identity/list-tokens.ts';
import { listTeams } from '../teams/list-teams.ts';
import { defineTool, LIST_ARGS, listOutput, listPage } from './mcp-tools.ts';
import { TEAM_ITEM, TOKEN_ITEM } from './output-shapes.ts';

export const listTeamsTool = defineTool({
  name: 'list_teams',
  title: 'List teams',
  description: 'Teams you can see, by name, with their limits.',
  readOnly: true,
  input: { ...LIST_ARGS },
  output: listOutput(TEAM_ITEM),
  call: ({ ctx, p }, args) => listTeams(ctx, p, listPage(args, 1)),
});

export const listTokensTool = defineTool({
  name: 'list_tokens',
  title: 'List API tokens',
  description: 'Your API tokens, newest first (name, scope, hint, expiry, last use; never the secret).',
  readOnly: true,
  input: { ...LIST_ARGS },
  output: listOutput(TOKEN_ITEM),
  call: ({ ctx, p }, args) => listTokens(ctx, p, {}, listPage(args, 2)),
});
