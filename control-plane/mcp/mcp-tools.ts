/**
 * The MCP tools this service offers, registered the same way as search providers. A tool lives in one file beside
 * its feature and calls the same service functions as the REST routes, with the same Principal, so authorization
 * is identical; where a route keeps its logic inline, the tool calls the route itself in process (`rest`, see
 * rest-call.ts), with the caller's own credentials. Input and output are zod schemas: the SDK checks the
 * arguments against `input` before `call`, publishes both as JSON Schema in tools/list, and checks what `call`
 * returns against `output`.
 *
 *   export const listTeamsTool = defineTool({
 *     name: 'list_teams',
 *     title: 'List teams',
 *     description: 'Teams you can see, by name, with their limits.',
 *     readOnly: true,
 *     input: { ...LIST_ARGS },
 *     output: listOutput(TEAM_ITEM),
 *     call: ({ ctx, p }, args) => listTeams(ctx, p, listPage(args, 1)),
 *   });
 *
 * plus `tools.add(listTeamsTool)` in control-plane/plugin.ts. A thrown SvcError becomes a tool error result
 * (isError) with its code.
 */
import { z } from 'zod';
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, parseListParams, type ListParams } from '../../core/http/list.ts';
import type { RestCall } from './rest-call.ts';

/** What a tool call runs with: the service context, the caller, and the REST API in process as the caller. */
export interface ToolCall {
  ctx: AppContext;
  p: Principal;
  rest: RestCall;
}

export interface McpTool {
  /** 1 to 128 characters of letters, digits, `_`, `-` and `.` (MCP 2025-11-25). */
  name: string;
  title: string;
  description: string;
  /** True for tools that change nothing (annotated readOnlyHint for clients). */
  readOnly: boolean;
  /** True for tools that delete or revoke (annotated destructiveHint). */
  destructive?: boolean;
  input: z.ZodObject;
  output: z.ZodObject;
  call(c: ToolCall, args: Record<string, unknown>): Promise<object>;
}

interface ToolDefinition<I extends z.ZodRawShape> extends Omit<McpTool, 'input' | 'call'> {
  input: I;
  call(c: ToolCall, args: z.infer<z.ZodObject<I>>): Promise<object>;
}

/** A tool whose arguments are typed from its input shape; unknown arguments are refused. */
export function defineTool<I extends z.ZodRawShape>(t: ToolDefinition<I>): McpTool {
  return { ...t, input: z.strictObject(t.input), call: (c, args) => t.call(c, args as z.infer<z.ZodObject<I>>) };
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
  limit: z.int().min(1).max(MAX_LIMIT).optional().describe(`Page size (default ${DEFAULT_LIMIT}).`),
  cursor: z.string().optional().describe('next_cursor of the previous page.'),
};

export const TEAM_ARG = z.string().max(200).optional().describe('Team id or name; default: every team you can read.');

/** An RFC 3339 UTC time, or null when it never happened. */
export const TIME = z.string().nullable();

/** The REST list envelope around items of one shape. */
export function listOutput(item: z.ZodObject): z.ZodObject {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable().describe('Pass back as cursor for the next page; null on the last page.') });
}

/** The list page of a tool call, checked exactly like the REST query (invalid_limit, invalid_cursor). */
export function listPage(args: { limit?: number; cursor?: string }, arity: number): ListParams {
  return parseListParams({ limit: args.limit === undefined ? undefined : String(args.limit), cursor: args.cursor }, arity);
}
