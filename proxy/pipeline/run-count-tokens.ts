/**
 * Token counting (`POST /v1/messages/count_tokens`, `:countTokens`; issue 3 point 7): forwarded to an upstream of
 * the caller's own style that has a counting endpoint; counted locally with tiktoken otherwise (or when that
 * upstream cannot be reached), and then marked with `X-Svc-Token-Count: estimated`. A count consumes no tokens:
 * its usage record has zero tokens.
 */
import type { FastifyReply } from 'fastify';
import { countConversationTokens } from '../../translators/count-tokens.ts';
import { decodeGenerativeCountTokensRequest } from '../../translators/generative/decode-generative-request.ts';
import { decodeMessagesRequest } from '../../translators/messages/decode-messages-request.ts';
import type { Conversation } from '../../translators/model.ts';
import { translationError } from '../../translators/translation-error.ts';
import type { Gateway } from '../gateway.ts';
import { resolveModel } from '../accounts/resolve-model.ts';
import { gatewayError, styleErrorResponse } from '../http/style-error.ts';
import { attemptUpstreams, type Attempt } from './attempt-upstreams.ts';
import { CallRecorder } from './call-recorder.ts';
import { ClientSink } from './client-sink.ts';
import type { GatewayCall } from './gateway-call.ts';
import { RequestPreparer } from './prepare-request.ts';
import { upstreamErrorAnswer } from './respond-json.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

function localCount(call: GatewayCall): object {
  let conv: Conversation;
  if (call.clientStyle === 'messages') conv = decodeMessagesRequest(call.body);
  else if (call.clientStyle === 'generative') conv = decodeGenerativeCountTokensRequest(call.body, call.model);
  else throw translationError('This style has no token counting endpoint.');
  const n = countConversationTokens(conv);
  return call.clientStyle === 'messages' ? { input_tokens: n } : { totalTokens: n };
}

export async function runCountTokens(gw: Gateway, call: GatewayCall, reply: FastifyReply): Promise<void> {
  const rec = new CallRecorder(gw, call);
  const sink = new ClientSink(reply.raw);
  const send = (status: number, headers: Record<string, string>, body: string | Buffer, errorCode: string | null, attempt?: Attempt) => {
    reply.hijack();
    sink.head(status, { 'content-type': JSON_TYPE, ...headers, ...(attempt ? { 'x-svc-model': attempt.step.model } : {}), 'content-length': String(Buffer.byteLength(body)) });
    sink.end(body);
    rec.finish({ status, errorCode, attempt, firstByteAt: sink.firstByteAt });
  };
  try {
    const plan = await resolveModel(gw.routing, call.key, call.model);
    rec.alias = plan.alias;
    const sameFamily = plan.steps.some((s) => s.accounts.some((a) => a.style === call.clientStyle && a.profile.countPath));
    if (sameFamily) {
      const result = await attemptUpstreams(gw, plan, new RequestPreparer(call), sink.signal, (a) => a.style === call.clientStyle && a.profile.countPath !== undefined);
      if (result.kind === 'gone') return rec.finish({ status: 499, errorCode: 'client_disconnected', attempt: result.attempt, firstByteAt: sink.firstByteAt });
      if (result.kind === 'answer') {
        if (result.errorBody) {
          const a = upstreamErrorAnswer(result.res.statusCode, result.errorBody, result.res.headers, call.clientStyle, call.clientStyle);
          return send(a.status, a.headers, a.body, a.error ? `upstream_${a.error.type}` : 'upstream_error', result);
        }
        // Read whole while upstreams were tried (attempt-upstreams.ts).
        return send(200, {}, result.raw ?? Buffer.alloc(0), null, result);
      }
    }
    send(200, { 'x-svc-token-count': 'estimated' }, JSON.stringify(localCount(call)), null);
  } catch (err) {
    const e = gatewayError(err);
    const r = styleErrorResponse(call.clientStyle, e);
    if (sink.headSent) return;
    send(r.status, r.headers, r.body, e.code);
  }
}
