/**
 * The family's error object for every surface that is not a provider style: /api/v1, /healthz, /mcp and ingest.
 * Fastify's own errors (validation, body too large, bad JSON, wrong content type, bad URL, every other FST_ERR_*
 * with a 4xx status) are mapped to catalogue codes here, in one place, so no route ever answers with another shape
 * or a stack trace. Refusals made before fastify sees the request are in client-error.ts.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isTransientDbError } from '../db/transient-db-error.ts';
import { errorBody, isSvcError, svcError, type SvcError } from '../errors.ts';

interface AjvIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Every refusal fastify makes for a request (its FST_ERR_* codes with a 4xx status), in catalogue terms. */
const FASTIFY_CODES: Record<string, () => SvcError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => svcError('payload_too_large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => svcError('unsupported_media_type'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => svcError('validation_failed', 'The Content-Length header does not match the body.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => svcError('invalid_json', 'The request body is empty but the content type says JSON.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => svcError('invalid_json'),
  FST_ERR_BAD_URL: () => svcError('bad_request', 'The URL is malformed (bad percent-encoding).'),
  FST_ERR_MAX_PARAM_LENGTH: () => svcError('validation_failed', 'A path segment is longer than 500 characters.'),
  FST_ERR_NOT_FOUND: () => svcError('route_not_found'),
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: () => svcError('unsupported_media_type', 'The request has a body but no Content-Type header.'),
  FST_ERR_ROUTE_MISSING_CONTENT: () => svcError('validation_failed', 'The request must have a body.'),
};

/** Any other 4xx that fastify or a plugin raises, by status, so it never turns into a 500. */
const BY_STATUS: Record<number, (message: string | undefined) => SvcError> = {
  400: (m) => svcError('validation_failed', m),
  404: () => svcError('route_not_found'),
  408: () => svcError('request_timeout'),
  413: () => svcError('payload_too_large'),
  414: () => svcError('validation_failed', 'The URL is too long.'),
  415: () => svcError('unsupported_media_type'),
  431: () => svcError('request_headers_too_large'),
};

/** Turns anything thrown into a catalogued SvcError. */
export function toSvcError(err: unknown): SvcError {
  if (isSvcError(err)) return err;
  const e = err as FastifyError & { validation?: AjvIssue[]; validationContext?: string; type?: string };
  if (e && Array.isArray(e.validation)) {
    const issues = e.validation.map((v) => {
      const where = `${e.validationContext ?? 'body'}${v.instancePath ?? ''}`;
      if (v.keyword === 'additionalProperties') return `${where}: unknown field "${String(v.params?.additionalProperty)}"`;
      return `${where} ${v.message ?? 'is not valid'}`;
    });
    return svcError('validation_failed', `The request is not valid: ${issues.join('; ')}.`, { issues });
  }
  if (e && typeof e.code === 'string' && FASTIFY_CODES[e.code]) return FASTIFY_CODES[e.code]();
  if (e instanceof SyntaxError && /JSON/i.test(e.message)) return svcError('invalid_json');
  // Node's signature for a request whose connection closed before its body was complete (not a reset of another
  // connection of ours): the client went away, or the request timeout cut it and already wrote the 408
  // (client-error.ts). Nobody is left to read this answer, and it is not a failure of ours.
  if (e?.code === 'ECONNRESET' && e.message === 'aborted') return svcError('bad_request', 'The connection closed before the request body was complete.');
  const status = e?.statusCode;
  if (typeof status === 'number' && BY_STATUS[status]) return BY_STATUS[status](typeof e.message === 'string' ? e.message : undefined);
  if (typeof status === 'number' && status >= 400 && status < 500) return svcError('bad_request', typeof e.message === 'string' ? e.message : undefined);
  // The database restarting, failing over or ending our session is not a bug of the request: say when to come back.
  // A bare connection reset stays an internal error: it may as well be an upstream's, and is not known to pass.
  if (isTransientDbError(err) && e?.code !== 'ECONNRESET') {
    return svcError('service_unavailable', 'The database is unreachable or busy right now; retry shortly.', {}, { 'retry-after': '2' });
  }
  return svcError('internal_error');
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const e = toSvcError(err);
  if (e.status >= 500) req.log.error({ err }, 'request failed');
  else req.log.debug({ code: e.code }, 'request refused');
  for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  return reply.code(e.status).type('application/json; charset=utf-8').send(errorBody(e));
}
