/**
 * Refusals on the provider-style endpoints, in the caller's own error shape (DESIGN.md §3 "Refusals"):
 * chat `{"error":{"message","type","param","code"}}`, messages `{"type":"error","error":{"type","message"}}`,
 * generative-language `{"error":{"code","message","status"}}`. A catalogue SvcError is turned into the neutral
 * UpstreamError (its status picks the error type; its stable code travels where the style has room for one) and
 * encoded by the style's own error encoder, so gateway refusals and re-expressed upstream errors look alike.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { svcError, type SvcError } from '../../core/errors.ts';
import { toSvcError } from '../../core/http/reply-error.ts';
import type { StyleName, UpstreamError } from '../../translators/model.ts';
import { getStyle } from '../../translators/styles.ts';
import { isTranslationError } from '../../translators/translation-error.ts';
import { errorTypeForStatus } from '../../translators/upstream-error-status.ts';

/** Anything thrown on a provider route → a catalogue error (translation errors are 400 invalid_request). */
export function gatewayError(err: unknown): SvcError {
  if (isTranslationError(err)) return svcError('invalid_request', err.message, err.param ? { param: err.param } : {});
  return toSvcError(err);
}

export function upstreamErrorOf(e: SvcError): UpstreamError {
  const out: UpstreamError = { status: e.status, type: errorTypeForStatus(e.status), message: e.message, code: e.code };
  const retry = e.headers['retry-after'] ?? e.headers['Retry-After'];
  if (retry !== undefined && /^\d+$/.test(retry)) out.retryAfter = Number(retry);
  return out;
}

type ErrorBody = { error?: Record<string, unknown> };

/** chat and responses: the stable code in `error.code` and the offending field, when known, in `error.param`. */
function putOpenAiCode(b: ErrorBody, code: string, param: unknown): void {
  if (!b.error) return;
  b.error.code = code;
  if (typeof param === 'string') b.error.param = param;
}

/**
 * Where each style carries the gateway's stable code: chat and responses in `error.code` (as OpenAI does),
 * messages in an added `error.code` (clients read `type` and `message` and ignore the rest), generative-language
 * as a google.rpc.ErrorInfo `reason` in `error.details` (Google's place for stable machine-readable reasons).
 */
const PUT_CODE: Record<StyleName, (body: ErrorBody, code: string, param: unknown) => void> = {
  chat: putOpenAiCode,
  responses: putOpenAiCode,
  messages: (b, code) => void (b.error && (b.error.code = code)),
  generative: (b, code) => {
    if (!b.error) return;
    const details = Array.isArray(b.error.details) ? b.error.details : [];
    b.error.details = [...details, { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code, domain: 'svc' }];
  },
};

/** Status, headers and JSON text of a refusal in `style`. */
export function styleErrorResponse(style: StyleName, e: SvcError): { status: number; headers: Record<string, string>; body: string } {
  const enc = getStyle(style).encodeError(upstreamErrorOf(e));
  PUT_CODE[style](enc.body as ErrorBody, e.code, e.details.param);
  return { status: enc.status, headers: { ...e.headers, ...enc.headers }, body: JSON.stringify(enc.body) };
}

export function sendStyleError(req: FastifyRequest, reply: FastifyReply, style: StyleName, err: unknown): FastifyReply {
  const e = gatewayError(err);
  if (e.status >= 500) req.log.error({ err, code: e.code }, 'gateway request failed');
  else req.log.debug({ code: e.code }, 'gateway request refused');
  const r = styleErrorResponse(style, e);
  return reply.code(r.status).headers(r.headers).type('application/json; charset=utf-8').send(r.body);
}
