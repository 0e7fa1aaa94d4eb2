/**
 * One MCP server (the SDK's McpServer) for one HTTP request: stateless, so each POST gets a fresh server and
 * transport, bound to the caller. Each registered tool runs with the caller's Principal; a refusal (SvcError)
 * becomes a tool error result with the REST code and message, so that the model can correct itself; any other failure is
 * logged and answered as an internal error without its text.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools
 */
// eslint-disable-next-line no-restricted-imports -- the SDK's own server/ folder, not this project's server/
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
// eslint-disable-next-line no-restricted-imports -- the SDK's own server/ folder, not this project's server/
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { ListToolsRequestSchema, type CallToolResult, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { errorBody, isSvcError } from '../../core/errors.ts';
import type { McpTool, ToolCall } from './mcp-tools.ts';

const INSTRUCTIONS = 'Tools of the svc service (AI gateway and error tracking). They act with the permissions of the API token used to connect; list tools return {items, next_cursor} pages: pass next_cursor back as cursor for the next page.';

async function runTool(tool: McpTool, c: ToolCall, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const structured = await tool.call(c, args) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (err) {
    if (!isSvcError(err)) {
      c.ctx.log.error({ err, tool: tool.name }, 'MCP tool failed');
      return { content: [{ type: 'text', text: 'internal_error: The tool failed with an internal error.' }], isError: true };
    }
    // No structuredContent: clients check it against the tool's output schema even on errors. The second text is
    // the family's error object, for clients that want the details.
    const body = errorBody(err);
    return { content: [{ type: 'text', text: `${body.error.code}: ${err.message}` }, { type: 'text', text: JSON.stringify(body) }], isError: true };
  }
}

const annotations = (tool: McpTool) => ({ title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: tool.destructive ?? false, openWorldHint: false });

const LISTS = new WeakMap<readonly McpTool[], ListToolsResult>();

/**
 * The tools/list answer, made once per tool list: the same for every caller, and turning the zod schemas into JSON
 * Schema costs about 0.5 ms a tool, which the SDK would spend on every tools/list. The shape is the SDK's own.
 */
function toolList(tools: readonly McpTool[]): ListToolsResult {
  let list = LISTS.get(tools);
  if (!list) {
    list = {
      tools: tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: toJsonSchemaCompat(tool.input, { strictUnions: true, pipeStrategy: 'input' }) as ListToolsResult['tools'][number]['inputSchema'],
        outputSchema: toJsonSchemaCompat(tool.output, { strictUnions: true, pipeStrategy: 'output' }) as ListToolsResult['tools'][number]['outputSchema'],
        annotations: annotations(tool),
        execution: { taskSupport: 'forbidden' },
      })),
    };
    LISTS.set(tools, list);
  }
  return list;
}

/** `tools` must be the same array from one request to the next (its tools/list answer is kept with it). */
export function buildMcpServer(tools: readonly McpTool[], c: ToolCall): McpServer {
  const server = new McpServer(
    { name: 'svc', title: 'svc AI gateway and error tracking', version: c.ctx.version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  for (const tool of tools) {
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: annotations(tool),
    }, (args: Record<string, unknown>) => runTool(tool, c, args));
  }
  server.server.setRequestHandler(ListToolsRequestSchema, () => toolList(tools));
  return server;
}
