/**
 * The MCP tools this service offers, registered the same way as search providers. A tool lives in one file beside
 * its feature and calls the same service functions as the REST routes, with the same Principal, so authorization
 * is identical:
 *
 *   export const listKeysTool: McpTool = {
 *     name: 'list_keys',
 *     title: 'List gateway keys',
 *     description: 'Gateway keys of the teams you can read.',
 *     readOnly: true,
 *     inputSchema: { type: 'object', additionalProperties: false, properties: { ...LIST_ARGS, team: TEAM_ARG } },
 *     call: (ctx, p, args) => listKeys(ctx, p, ..., listPage(args)),
 *   };
 *
 * plus one line in control-plane/plugin.ts: `tools.add(listKeysTool);`. Arguments are checked against inputSchema
 * before `call` (a subset of JSON Schema: see check-arguments.ts). Whatever `call` returns (a JSON object) is sent as
 * structuredContent and as JSON text; a thrown SvcError becomes a tool error result (isError) with its code.
 */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { parseListParams, type ListParams } from '../../core/http/list.ts';
import type { JsonSchema } from './check-arguments.ts';

export interface McpTool {
  /** 1 to 128 characters of letters, digits, `_`, `-` and `.` (MCP 2025-11-25). */
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  /** True for tools that change nothing (annotated readOnlyHint for clients). */
  readOnly: boolean;
  call(ctx: AppContext, p: Principal, args: Record<string, unknown>): Promise<unknown>;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export class McpToolRegistry {
  #tools = new Map<string, McpTool>();

  add(tool: McpTool): void {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`MCP tool name "${tool.name}" is not valid`);
    if (this.#tools.has(tool.name)) throw new Error(`An MCP tool named "${tool.name}" is already registered`);
    this.#tools.set(tool.name, tool);
  }

  get(name: string): McpTool | undefined {
    return this.#tools.get(name);
  }

  list(): McpTool[] {
    return [...this.#tools.values()];
  }
}

/** `limit` and `cursor` arguments of list tools, the same as the REST query parameters. */
export const LIST_ARGS = {
  limit: { type: 'integer', minimum: 1, maximum: 200, description: 'Page size (default 50).' },
  cursor: { type: 'string', description: 'next_cursor of the previous page.' },
} as const satisfies Record<string, JsonSchema>;

export const TEAM_ARG = { type: 'string', description: 'Team id or name; default: every team you can read.' } as const satisfies JsonSchema;

/** The list page of a tool call, checked exactly like the REST query (invalid_limit, invalid_cursor). */
export function listPage(args: Record<string, unknown>, arity: number): ListParams {
  return parseListParams({ limit: args.limit === undefined ? undefined : String(args.limit), cursor: args.cursor }, arity);
}
