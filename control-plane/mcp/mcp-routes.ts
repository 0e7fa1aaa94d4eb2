/**
 * POST /mcp: the Model Context Protocol over streamable HTTP, stateless (no Mcp-Session-Id), answering every request
 * with application/json (never an SSE stream). Same authorization as the REST API: `Authorization: Bearer <token>`;
 * without credentials → 401 with the error object and `WWW-Authenticate: Bearer`. A MCP-Protocol-Version header
 * naming a version this server does not speak → 400 (initialize negotiates instead). GET and DELETE /mcp → 405:
 * there is no server-initiated stream and no session to end.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context.ts';
import { svcError } from '../../core/errors.ts';
import { isInitialize, McpServer, MCP_PROTOCOL_VERSIONS } from './mcp-server.ts';
import type { McpToolRegistry } from './mcp-tools.ts';

export function mcpRoutes(app: FastifyInstance, ctx: AppContext, tools: McpToolRegistry): void {
  const server = new McpServer(ctx, tools);
  app.post('/mcp', { config: { public: true, openapi: false } }, async (req, reply) => {
    if (!req.principal) throw svcError('unauthenticated', undefined, {}, { 'WWW-Authenticate': 'Bearer' });
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !isInitialize(req.body) && !(MCP_PROTOCOL_VERSIONS as readonly string[]).includes(String(version))) {
      throw svcError('unsupported_protocol_version', `MCP-Protocol-Version ${String(version)} is not supported; this server speaks ${MCP_PROTOCOL_VERSIONS.join(', ')}.`, { supported: [...MCP_PROTOCOL_VERSIONS] });
    }
    const answer = await server.handle(req.principal, req.body);
    if (!answer) return reply.code(202).send();
    return reply.type('application/json; charset=utf-8').send(answer);
  });
}
