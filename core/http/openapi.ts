/**
 * The OpenAPI 3 document of the whole API, generated from the route schemas as routes register. Routes opt out with
 * `config: { openapi: false }` (provider-style and ingest routes are described in their own docs).
 */
import type { FastifyInstance, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: readonly string[];
  }
}

interface Op {
  method: string;
  path: string;
  schema: Record<string, unknown>;
}

export class OpenApiCollector {
  #ops: Op[] = [];

  attach(app: FastifyInstance): void {
    app.addHook('onRoute', (route: RouteOptions) => {
      const cfg = route.config as { openapi?: boolean } | undefined;
      if (cfg?.openapi === false || !route.url.startsWith('/api/v1') ) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const m of methods) {
        if (m === 'HEAD') continue;
        this.#ops.push({ method: m.toLowerCase(), path: route.url.replace(/:([A-Za-z_]+)/g, '{$1}'), schema: (route.schema ?? {}) as Record<string, unknown> });
      }
    });
  }

  document(info: { title: string; version: string; serverUrl: string }): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const op of this.#ops) {
      const s = op.schema;
      const parameters: unknown[] = [];
      for (const [where, key] of [['path', 'params'], ['query', 'querystring']] as const) {
        const props = (s[key] as { properties?: Record<string, unknown>; required?: string[] } | undefined);
        for (const [name, schema] of Object.entries(props?.properties ?? {})) {
          parameters.push({ name, in: where, required: where === 'path' || (props?.required ?? []).includes(name), schema });
        }
      }
      const responses: Record<string, unknown> = {};
      for (const [code, schema] of Object.entries((s.response as Record<string, unknown>) ?? {})) {
        responses[code] = { description: (schema as { description?: string }).description ?? `HTTP ${code}`, content: { 'application/json': { schema } } };
      }
      if (Object.keys(responses).length === 0) responses.default = { description: 'Success, or the error object', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
      paths[op.path] ??= {};
      paths[op.path][op.method] = {
        summary: s.summary,
        description: s.description,
        tags: s.tags,
        parameters,
        ...(s.body ? { requestBody: { required: true, content: { 'application/json': { schema: s.body } } } } : {}),
        responses,
      };
    }
    return {
      openapi: '3.1.0',
      info: { title: info.title, version: info.version },
      servers: [{ url: info.serverUrl }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
        schemas: {
          Error: {
            type: 'object',
            required: ['error'],
            properties: { error: { type: 'object', required: ['code', 'message', 'details'], properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } } } },
          },
        },
      },
      security: [{ bearer: [] }],
      paths,
    };
  }
}
