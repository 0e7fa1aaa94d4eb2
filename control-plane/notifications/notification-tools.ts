/** MCP tool `list_notifications`: the same list as GET /api/v1/notifications. */
import { EVENT_KINDS, type EventKind } from '../../core/outbox.ts';
import { LIST_ARGS, listPage, TEAM_ARG, type McpTool } from '../mcp/mcp-tools.ts';
import { resolveTeamId } from '../team-of-request.ts';
import { listNotifications } from './notification-service.ts';

export const listNotificationsTool: McpTool = {
  name: 'list_notifications',
  title: 'List notifications',
  description: 'Events your teams were told about (new issues, budget alerts, …), newest first, with their webhook delivery counts.',
  readOnly: true,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { ...LIST_ARGS, team: TEAM_ARG, kind: { type: 'string', enum: [...EVENT_KINDS], description: 'Only events of this kind.' } },
  },
  call: async (ctx, p, args) => {
    const teamId = typeof args.team === 'string' ? await resolveTeamId(ctx.db, args.team) : undefined;
    return listNotifications(ctx, p, { teamId, kind: args.kind as EventKind | undefined }, listPage(args, 1));
  },
};
