/**
 * The family's error object for every surface that is not a provider style: /api/v1, /healthz, /mcp and ingest.
 * Fastify's own errors (validation, body too large, bad JSON, wrong content type) are mapped to catalogue codes
 * here, in one place, so no route ever answers with another shape or a stack trace.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, isSvcError, svcError, type SvcError } from '../errors.ts';

interface AjvIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

const FASTIFY_CODES: Record<string, () => SvcError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => svcError('payload_too_large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => svcError('unsupported_media_type'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => svcError('validation_failed', 'The Content-Length header does not match the body.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => svcError('invalid_json', 'The request body is empty but the content type says JSON.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => svcError('invalid_json'),
  FST_ERR_BAD_URL: () => svcError('validation_failed', 'The URL is malformed.'),
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
  if (e && e.statusCode === 413) return svcError('payload_too_large');
  if (e && e.statusCode === 415) return svcError('unsupported_media_type');
  if (e && e.statusCode === 400) return svcError('validation_failed', typeof e.message === 'string' ? e.message : undefined);
  return svcError('internal_error');
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const e = toSvcError(err);
  if (e.status >= 500) req.log.error({ err }, 'request failed');
  else req.log.debug({ code: e.code }, 'request refused');
  for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  return reply.code(e.status).type('application/json; charset=utf-8').send(errorBody(e));
}
