/** The AI gateway's MCP tools, registered in control-plane/plugin.ts. */
import type { McpTool } from '../mcp-tools.ts';
import { listAccountsTool, refreshAccountQuotaTool, showAccountTool } from './account-tools.ts';
import { deleteAliasTool, listAliasesTool, setAliasTool } from './alias-tools.ts';
import { listCallsTool, showCallTool } from './call-tools.ts';
import { compressionReportTool } from './compression-tool.ts';
import { createKeyTool, keyQuotaTool, listKeysTool, revokeKeyTool, updateKeyTool } from './key-tools.ts';
import { deletePriceTool, listPricesTool, setPriceTool } from './price-tools.ts';
import { usageTool } from './usage-tool.ts';

export const GATEWAY_TOOLS: readonly McpTool[] = [
  listKeysTool, createKeyTool, updateKeyTool, revokeKeyTool, keyQuotaTool, usageTool, compressionReportTool,
  listAccountsTool, showAccountTool, refreshAccountQuotaTool,
  listAliasesTool, setAliasTool, deleteAliasTool,
  listCallsTool, showCallTool,
  listPricesTool, setPriceTool, deletePriceTool,
];
