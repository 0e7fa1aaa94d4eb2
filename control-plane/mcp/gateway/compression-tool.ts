/** MCP tool `compression_report`: what conversation compression saved and would save, as GET /api/v1/compression/report answers it. */
import { z } from 'zod';
import { defineTool } from '../mcp-tools.ts';
import { COMPRESSION_REPORT } from '../output-shapes.ts';
import { restPath } from '../rest-call.ts';

export const compressionReportTool = defineTool({
  name: 'compression_report',
  title: 'Compression savings',
  description: 'What conversation compression saved (mode on) and would have saved (audit-only) over the last N days, per model, key or team: estimated tokens, dollars at the cache-read and the input price, cache breaks, their cost and the net saving (negative when compression made the sessions dearer).',
  readOnly: true,
  input: {
    days: z.int().min(1).max(366).optional().describe('The last N days, 1 to 366 (default 30).'),
    group_by: z.enum(['model', 'key', 'team']).optional().describe('Groups (default model).'),
  },
  output: COMPRESSION_REPORT,
  call: ({ rest }, { days, group_by }) => rest('GET', restPath('compression', 'report'), { query: { days, group_by } }),
});
