/** MCP tool `list_notifications`: the same list as GET /api/v1/notifications. */
import { z } from 'zod';
import { EVENT_KINDS } from '../../core/outbox.ts';
import { defineTool, LIST_ARGS, listOutput, listPage, TEAM_ARG } from '../mcp/mcp-tools.ts';
import { NOTIFICATION_ITEM } from '../mcp/output-shapes.ts';
import { resolveTeamId } from '../team-of-request.ts';
import { listNotifications } from './notification-service.ts';

export const listNotificationsTool = defineTool({
  name: 'list_notifications',
  title: 'List notifications',
  description: 'Events your teams were told about (new issues, budget alerts, …), newest first, with their webhook delivery counts.',
  readOnly: true,
  input: { ...LIST_ARGS, team: TEAM_ARG, kind: z.enum(EVENT_KINDS).optional().describe('Only events of this kind.') },
  output: listOutput(NOTIFICATION_ITEM),
  call: async ({ ctx, p }, args) => {
    const teamId = args.team === undefined ? undefined : await resolveTeamId(ctx.db, args.team);
    return listNotifications(ctx, p, { teamId, kind: args.kind }, listPage(args, 1));
  },
});
