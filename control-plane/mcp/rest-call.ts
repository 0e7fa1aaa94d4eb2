/**
 * The REST API called in process, as the MCP caller: the request goes through fastify's whole pipeline (the same
 * authentication hook, route schema, handler and refusals) with the caller's own Authorization header or session
 * cookie. Tools use it where a route keeps its logic inline, so that there is one implementation of each operation.
 * A refusal (status 400 or more) is thrown back as the same SvcError code, message and details.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { svcError, type ErrorCode } from '../../core/errors.ts';

export type RestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type RestCall = (method: RestMethod, path: string, opts?: { query?: Record<string, unknown>; body?: unknown }) => Promise<object>;

/** A path built from segments, each escaped (model names and alias names may hold `/` or `:`). */
export function restPath(...segments: string[]): string {
  return `/api/v1/${segments.map(encodeURIComponent).join('/')}`;
}

function queryString(query: Record<string, unknown> = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) qs.set(k, String(v));
  return qs.size ? `?${qs}` : '';
}

export function restCaller(app: FastifyInstance, req: FastifyRequest): RestCall {
  const headers: Record<string, string> = {};
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  if (req.headers.cookie) headers.cookie = req.headers.cookie;
  return async (method, path, opts = {}) => {
    const res = await app.inject({ method, url: path + queryString(opts.query), headers, ...(opts.body === undefined ? {} : { payload: opts.body as object }) });
    const answer = res.body === '' ? {} : (res.json() as Record<string, unknown>);
    if (res.statusCode < 400) return answer;
    const e = (answer.error ?? {}) as { code?: string; message?: string; details?: Record<string, unknown> };
    throw svcError((e.code ?? 'internal_error') as ErrorCode, e.message, e.details);
  };
}
