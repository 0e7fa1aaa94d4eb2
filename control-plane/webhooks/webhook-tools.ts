/** MCP tool `list_webhooks`: the same list as GET /api/v1/webhooks. */
import { LIST_ARGS, listPage, TEAM_ARG, type McpTool } from '../mcp/mcp-tools.ts';
import { resolveTeamId } from '../team-of-request.ts';
import { listWebhooks } from './webhook-service.ts';

export const listWebhooksTool: McpTool = {
  name: 'list_webhooks',
  title: 'List webhooks',
  description: 'Webhooks of the teams you can read (URL and the event kinds each receives), newest first.',
  readOnly: true,
  inputSchema: { type: 'object', additionalProperties: false, properties: { ...LIST_ARGS, team: TEAM_ARG } },
  call: async (ctx, p, args) => {
    const teamId = typeof args.team === 'string' ? await resolveTeamId(ctx.db, args.team) : undefined;
    return listWebhooks(ctx, p, { teamId }, listPage(args, 2));
  },
};
