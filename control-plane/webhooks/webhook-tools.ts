/** MCP tool `list_webhooks`: the same list as GET /api/v1/webhooks. */
import { defineTool, LIST_ARGS, listOutput, listPage, TEAM_ARG } from '../mcp/mcp-tools.ts';
import { WEBHOOK_ITEM } from '../mcp/output-shapes.ts';
import { resolveTeamId } from '../team-of-request.ts';
import { listWebhooks } from './webhook-service.ts';

export const listWebhooksTool = defineTool({
  name: 'list_webhooks',
  title: 'List webhooks',
  description: 'Webhooks of the teams you can read (URL and the event kinds each receives), newest first.',
  readOnly: true,
  input: { ...LIST_ARGS, team: TEAM_ARG },
  output: listOutput(WEBHOOK_ITEM),
  call: async ({ ctx, p }, args) => {
    const teamId = args.team === undefined ? undefined : await resolveTeamId(ctx.db, args.team);
    return listWebhooks(ctx, p, { teamId }, listPage(args, 2));
  },
});
