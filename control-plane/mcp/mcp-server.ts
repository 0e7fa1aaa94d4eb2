/**
 * The Model Context Protocol over JSON-RPC 2.0, without transport: one message in, one response (or none for
 * notifications and client responses) out. Methods: initialize (protocol version negotiation), ping, tools/list,
 * tools/call; notifications such as notifications/initialized are accepted and need no answer.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools
 */
import type { AppContext } from '../../core/context.ts';
import type { Principal } from '../../core/auth/principal.ts';
import { isSvcError } from '../../core/errors.ts';
import { checkArguments } from './check-arguments.ts';
import type { McpToolRegistry } from './mcp-tools.ts';

/** Newest first; initialize answers the client's version when listed here, else the newest. */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18'] as const;

/** JSON-RPC 2.0 error codes. @see https://www.jsonrpc.org/specification#error_object */
export const RPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603 } as const;

type Id = string | number;

export interface RpcResponse {
  jsonrpc: '2.0';
  id: Id | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const ok = (id: Id, result: unknown): RpcResponse => ({ jsonrpc: '2.0', id, result });
const fail = (id: Id | null, code: number, message: string, data?: unknown): RpcResponse => ({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a parsed body is an initialize request (the one request sent before a version is agreed). */
export function isInitialize(message: unknown): boolean {
  return isObject(message) && message.method === 'initialize';
}

export class McpServer {
  #ctx: AppContext;
  #tools: McpToolRegistry;

  constructor(ctx: AppContext, tools: McpToolRegistry) {
    this.#ctx = ctx;
    this.#tools = tools;
  }

  /** Answers one JSON-RPC message; null when no answer is due (notification or client response). */
  async handle(p: Principal, message: unknown): Promise<RpcResponse | null> {
    if (Array.isArray(message)) return fail(null, RPC.invalidRequest, 'JSON-RPC batches are not supported (MCP 2025-06-18 and later send one message per request).');
    if (!isObject(message) || message.jsonrpc !== '2.0') return fail(null, RPC.invalidRequest, 'The body must be a JSON-RPC 2.0 message with "jsonrpc": "2.0".');
    if (typeof message.method !== 'string') {
      if ('result' in message || 'error' in message) return null; // a response to a server request: nothing to answer
      return fail(null, RPC.invalidRequest, 'The message has no method.');
    }
    if (!('id' in message)) return null; // notifications/initialized, notifications/cancelled, …
    const id = message.id;
    if (typeof id !== 'string' && typeof id !== 'number') return fail(null, RPC.invalidRequest, 'The id must be a string or a number.');
    const params = message.params ?? {};
    if (!isObject(params)) return fail(id, RPC.invalidParams, 'params must be an object.');
    switch (message.method) {
      case 'initialize':
        return this.#initialize(id, params);
      case 'ping':
        return ok(id, {});
      case 'tools/list':
        return ok(id, { tools: this.#tools.list().map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: { title: t.title, readOnlyHint: t.readOnly, openWorldHint: false } })) });
      case 'tools/call':
        return this.#call(p, id, params);
      default:
        return fail(id, RPC.methodNotFound, `Method not found: ${message.method}.`);
    }
  }

  #initialize(id: Id, params: Record<string, unknown>): RpcResponse {
    if (typeof params.protocolVersion !== 'string') return fail(id, RPC.invalidParams, 'initialize needs params.protocolVersion.');
    const asked = params.protocolVersion;
    const protocolVersion = (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(asked) ? asked : MCP_PROTOCOL_VERSIONS[0];
    return ok(id, {
      protocolVersion,
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'svc', title: 'svc AI gateway and error tracking', version: this.#ctx.version },
      instructions: 'Tools of the svc service. They act with the permissions of the API token used to connect; list tools return {items, next_cursor} pages: pass next_cursor back as cursor for the next page.',
    });
  }

  async #call(p: Principal, id: Id, params: Record<string, unknown>): Promise<RpcResponse> {
    const tool = typeof params.name === 'string' ? this.#tools.get(params.name) : undefined;
    if (!tool) return fail(id, RPC.invalidParams, `Unknown tool: ${String(params.name)}.`);
    const args = params.arguments ?? {};
    const problems = checkArguments(tool.inputSchema, args);
    // Invalid arguments are a tool execution error, so the model can correct itself (MCP 2025-11-25).
    if (problems.length) return ok(id, { content: [{ type: 'text', text: `Invalid arguments: ${problems.join('; ')}.` }], isError: true });
    try {
      const result = await tool.call(this.#ctx, p, args as Record<string, unknown>);
      const structured = isObject(result) ? result : { result };
      return ok(id, { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured });
    } catch (err) {
      if (!isSvcError(err)) {
        this.#ctx.log.error({ err, tool: tool.name }, 'MCP tool failed');
        return fail(id, RPC.internalError, 'The tool failed with an internal error.');
      }
      const error = { code: err.code, message: err.message, details: err.details };
      return ok(id, { content: [{ type: 'text', text: `${err.code}: ${err.message}` }], structuredContent: { error }, isError: true });
    }
  }
}
