/**
 * POST /mcp: the Model Context Protocol over streamable HTTP, served by the SDK's web-standard transport in
 * stateless mode (no Mcp-Session-Id) with JSON answers (never an SSE stream). Same authorization as the REST API:
 * `Authorization: Bearer <token>`; without credentials → 401 with the error object and `WWW-Authenticate: Bearer`.
 * A MCP-Protocol-Version header naming a version the SDK does not speak → 400 with the error object (initialize
 * negotiates instead). GET and DELETE /mcp → 405: there is no server-initiated stream and no session to end.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
// eslint-disable-next-line no-restricted-imports -- the SDK's own server/ folder, not this project's server/
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../../core/context.ts';
import { svcError } from '../../core/errors.ts';
import { buildMcpServer } from './build-mcp-server.ts';
import type { McpTool, McpToolRegistry } from './mcp-tools.ts';
import { restCaller } from './rest-call.ts';

const isInitialize = (body: unknown): boolean => typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';

/** The fastify request as a web Request for the transport (the body is handed over already parsed). */
function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return new Request(`http://${req.host || 'localhost'}${req.url}`, { method: 'POST', headers });
}

export function mcpRoutes(app: FastifyInstance, ctx: AppContext, tools: McpToolRegistry): void {
  // Taken at the first request, once every feature has registered its tools; the same array every time after.
  let all: McpTool[] | undefined;
  app.post('/mcp', { config: { public: true, openapi: false } }, async (req, reply) => {
    if (!req.principal) throw svcError('unauthenticated', undefined, {}, { 'WWW-Authenticate': 'Bearer' });
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !isInitialize(req.body) && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
      throw svcError('unsupported_protocol_version', `MCP-Protocol-Version ${String(version)} is not supported; this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`, { supported: SUPPORTED_PROTOCOL_VERSIONS });
    }
    const server = buildMcpServer((all ??= tools.list()), { ctx, p: req.principal, rest: restCaller(app, req) });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const answer = await transport.handleRequest(webRequest(req), { parsedBody: req.body });
      reply.code(answer.status);
      answer.headers.forEach((value, name) => reply.header(name, value));
      return reply.send(await answer.text());
    } finally {
      await server.close();
    }
  });
}
