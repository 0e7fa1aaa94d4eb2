/** MCP tools for kept call bodies (keys with log_bodies set): `list_calls` and `show_call`, as GET /api/v1/calls. */
import { z } from 'zod';
import { defineTool, LIST_ARGS, listOutput, TEAM_ARG } from '../mcp-tools.ts';
import { CALL_BODY, CALL_ITEM } from '../output-shapes.ts';
import { restPath } from '../rest-call.ts';

export const listCallsTool = defineTool({
  name: 'list_calls',
  title: 'List kept gateway calls',
  description: 'Gateway calls whose bodies were kept (the key has log_bodies set), newest first: model, status, sizes, expiry; not the bodies.',
  readOnly: true,
  input: { ...LIST_ARGS, team: TEAM_ARG, key: z.string().max(64).optional().describe('Only this gateway key (id).') },
  output: listOutput(CALL_ITEM),
  call: ({ rest }, args) => rest('GET', restPath('calls'), { query: args }),
});

export const showCallTool = defineTool({
  name: 'show_call',
  title: 'Show a kept gateway call',
  description: 'One kept call: its request as received and its answer as the client got it (a stream as the assembled answer).',
  readOnly: true,
  input: { call: z.string().min(1).max(64).describe('The call id.') },
  output: CALL_BODY,
  call: ({ rest }, { call }) => rest('GET', restPath('calls', call)),
});
