/** MCP tool `usage`: gateway usage per model, key, account or team, as GET /api/v1/usage answers it. */
import { z } from 'zod';
import { GROUPS } from '../../usage/usage-query.ts';
import { defineTool, TEAM_ARG } from '../mcp-tools.ts';
import { USAGE } from '../output-shapes.ts';
import { restPath } from '../rest-call.ts';

export const usageTool = defineTool({
  name: 'usage',
  title: 'Gateway usage',
  description: 'Calls, tokens, cost (USD), errors and p50/p95 latency of gateway calls over the last N calendar days (UTC, today included), grouped, with a time series.',
  readOnly: true,
  input: {
    days: z.int().min(1).max(366).optional().describe('The last N days, 1 to 366 (default 7).'),
    group_by: z.array(z.enum(GROUPS)).min(1).max(GROUPS.length).optional().describe('Groups (default [model]).'),
    interval: z.enum(['day', 'hour']).optional().describe('Time-series bucket (default day; hour for at most 31 days).'),
    team: TEAM_ARG,
    key: z.string().max(64).optional().describe('Only this gateway key (id).'),
  },
  output: USAGE,
  call: ({ rest }, { group_by, ...query }) => rest('GET', restPath('usage'), { query: { ...query, group_by: group_by?.join(',') } }),
});
