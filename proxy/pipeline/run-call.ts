/**
 * A generation call from resolution to the usage record: resolve the model (403/404), admit it through the limit
 * guard, try upstreams (attempt-upstreams.ts), then relay the answer: streamed (pipe-stream.ts) or whole
 * (respond-json.ts), with `X-Svc-Model` naming the model that answered and `X-Svc-Warning` for parameters dropped
 * in translation. Every call with a known key ends in exactly one usage record (call-recorder.ts).
 *
 * Usage is durable before the answer is complete (issue 11 point 2): a relayed answer's last byte (a JSON body's
 * last byte, or the whole of a JSON body up to 64 KB; a stream's final event and its end, pipe-stream.ts) is held
 * back until the usage writer has the record committed or journaled. The gateway's own refusals are not held: they use no tokens, and one of them
 * (usage_backlog) is what a client gets precisely when records cannot be written.
 *
 * A streamed call's first byte waits for its open row (call-recorder.ts, proxy/metering/open-call.ts), written in
 * parallel with the upstream request: if the node dies mid-stream, the leader records the call from its estimate.
 * A whole JSON answer needs none: its record is durable before its last byte, and before that the client has no
 * answer (a node killed then leaves a call the client saw fail, and no usage the upstream reported to anyone).
 */
import type { FastifyReply } from 'fastify';
import { isSvcError, svcError } from '../../core/errors.ts';
import type { Gateway } from '../gateway.ts';
import { resolveModel } from '../accounts/resolve-model.ts';
import type { LimitTicket } from '../limits/limit-guard.ts';
import { styleErrorResponse, gatewayError } from '../http/style-error.ts';
import { attemptUpstreams, type Attempt } from './attempt-upstreams.ts';
import { CallRecorder } from './call-recorder.ts';
import { JsonArrayFramer, SseFramer } from './client-framer.ts';
import { ClientSink } from './client-sink.ts';
import type { GatewayCall } from './gateway-call.ts';
import { pipePassthrough, pipeTranslated, type StreamResult } from './pipe-stream.ts';
import { RequestPreparer } from './prepare-request.ts';
import { successAnswer, upstreamErrorAnswer, type JsonAnswer } from './respond-json.ts';
import type { UpstreamResponse } from '../upstream/send-upstream.ts';
import { createUsageTap } from './usage-taps.ts';
import { StreamCollector } from '../../translators/collect-stream.ts';

const WARNING_CHARS = /[^\x20-\x7e]/g;
/** A JSON answer up to this size is held whole until its usage record is durable (one write); a larger one all but its last byte. */
const ONE_WRITE_BYTES = 64 * 1024;

function answerHeaders(a: Attempt, routeWarnings: readonly string[] = []): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = { 'x-svc-model': a.step.model };
  const warnings = routeWarnings.length > 0 ? [...routeWarnings, ...a.prepared.warnings] : a.prepared.warnings;
  if (warnings.length > 0) h['x-svc-warning'] = warnings.map((w) => w.replace(WARNING_CHARS, '?'));
  return h;
}

export async function runCall(gw: Gateway, call: GatewayCall, reply: FastifyReply): Promise<void> {
  const rec = new CallRecorder(gw, call);
  const sink = new ClientSink(reply.raw);
  const preparer = new RequestPreparer(call);
  let ticket: LimitTicket | undefined;
  const refuse = (err: unknown, attempt?: Attempt) => {
    const e = gatewayError(err);
    const r = styleErrorResponse(call.clientStyle, e);
    reply.hijack();
    sink.head(r.status, { ...r.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(r.body)) });
    sink.end(r.body);
    rec.finish({ status: r.status, errorCode: e.code, attempt, firstByteAt: sink.firstByteAt, ticket, answer: { body: r.body } });
  };
  try {
    // Refuse rather than serve a call whose usage (and spend) could not be recorded.
    if (gw.usage.full) throw svcError('usage_backlog', undefined, {}, { 'retry-after': '5' });
    // Both are synchronous on the usual call (cached routing data, no limits); a promise only when they need one.
    const resolved = resolveModel(gw.routing, call.key, call.model);
    const plan = resolved instanceof Promise ? await resolved : resolved;
    rec.alias = plan.alias;
    const admitted = gw.limits.admit({
      key: call.key, model: call.model, candidates: plan.steps.map((s) => s.model), clientStyle: call.clientStyle,
      stream: call.stream, estimatedInputTokens: Math.ceil(call.raw.length / 4), body: call.body, raw: call.raw,
    });
    ticket = admitted instanceof Promise ? await admitted : admitted;
    // A streamed call's open row is written while the upstream is asked, and waited for before the first byte.
    const result = await attemptUpstreams(gw, plan, preparer, sink.signal, undefined, call.stream ? (a) => rec.open(a) : undefined);
    if (result.kind === 'gone') return rec.finish({ status: 499, errorCode: 'client_disconnected', attempt: result.attempt, firstByteAt: sink.firstByteAt, ticket, promptTokens: () => rec.promptTokens(preparer) });
    if (result.kind === 'failed') {
      const { attempt, res, errorBody } = result;
      if (attempt && res && errorBody) return await relayJson(upstreamErrorAnswer(res.statusCode, errorBody, res.headers, attempt.prepared.upstreamStyle, call.clientStyle), attempt);
      return refuse(result.error, attempt);
    }
    const attempt: Attempt = result;
    if (result.errorBody) return await relayJson(upstreamErrorAnswer(result.res.statusCode, result.errorBody, result.res.headers, attempt.prepared.upstreamStyle, call.clientStyle), attempt);
    if (call.stream) return await relayStream(result.res, attempt);
    // Read whole while upstreams were tried: a body cut halfway was a failed attempt there.
    const answer = successAnswer(result.raw ?? Buffer.alloc(0), attempt.prepared.upstreamStyle, call.clientStyle, attempt.prepared.request);
    if (!answer) return refuse(svcError('upstream_bad_response', `The upstream answer could not be read as a ${attempt.prepared.upstreamStyle}-style answer.`), attempt);
    return await relayJson(answer, attempt);
  } catch (err) {
    if (sink.gone) return rec.finish({ status: 499, errorCode: 'client_disconnected', firstByteAt: sink.firstByteAt, ticket });
    if (sink.headSent) {
      gw.ctx.log.error({ err }, 'gateway call failed after the answer started');
      sink.hold();
      sink.end();
      await rec.finish({ status: 500, errorCode: 'internal_error', firstByteAt: sink.firstByteAt, ticket });
      return sink.release();
    }
    if (!isSvcError(err)) gw.ctx.log.error({ err }, 'gateway call failed');
    return refuse(err);
  }

  async function relayJson(answer: JsonAnswer, attempt: Attempt): Promise<void> {
    reply.hijack();
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
    sink.head(answer.status, { ...answer.headers, ...answerHeaders(attempt, call.warnings), 'content-length': String(body.length) });
    if (body.length > ONE_WRITE_BYTES) {
      // All but the last byte now (the transfer overlaps the commit); the last one once the record is durable.
      void sink.write(body.subarray(0, body.length - 1));
      sink.hold();
      sink.end(body.subarray(body.length - 1));
    } else {
      // A small answer leaves whole, in one socket write, once the record is durable: sending all but its last
      // byte first cost a second write to the client on every call. Its time to first byte is when it was ready.
      sink.firstByteAt ??= performance.now();
      sink.hold();
      sink.end(body);
    }
    const errorCode = answer.error ? `upstream_${answer.error.type}` : null;
    await rec.finish({
      status: answer.status, errorCode, attempt, firstByteAt: sink.firstByteAt, ticket, usage: answer.status < 400 ? answer.usage : undefined, complete: true,
      promptTokens: () => rec.promptTokens(preparer), producedText: () => '', answer: { body: answer.body },
    });
    sink.release();
  }

  async function relayStream(res: UpstreamResponse, attempt: Attempt): Promise<void> {
    reply.hijack();
    // No byte before the open row is durable: a node killed from here on still leaves the call's record.
    await rec.opened();
    const framer = call.jsonArray ? new JsonArrayFramer() : new SseFramer();
    sink.head(200, { 'content-type': framer.contentType, 'cache-control': 'no-cache', ...answerHeaders(attempt, call.warnings) });
    const p = attempt.prepared;
    // The stream is collected into one reply only for a key that keeps call bodies.
    const collector = call.key.logBodies !== 'off' ? new StreamCollector() : undefined;
    let result: StreamResult;
    if (p.same) {
      const mode = call.jsonArray ? 'reframe' : p.hideUsageChunk ? 'withhold' : 'raw';
      result = await pipePassthrough(res.body, sink, call.clientStyle, createUsageTap(call.clientStyle, { hideUsageChunk: p.hideUsageChunk }), framer, mode, collector);
    } else {
      result = await pipeTranslated(res.body, sink, p.upstreamStyle, call.clientStyle, framer, { includeUsage: call.includeUsage, request: p.request }, collector);
    }
    const errorCode = result.clientGone ? 'client_disconnected' : result.error ? `upstream_${result.error.type}` : null;
    // The final event and the end wait in the sink until the record is durable.
    await rec.finish({
      status: 200, errorCode, attempt, firstByteAt: sink.firstByteAt, ticket, usage: result.usage, complete: result.complete,
      producedText: result.producedText, promptTokens: () => rec.promptTokens(preparer), answer: collector ? { stream: collector.result() } : undefined,
    });
    sink.release();
  }
}
