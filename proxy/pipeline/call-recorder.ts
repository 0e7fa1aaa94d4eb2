/**
 * The one usage record of a call (issue 3 point 6): who called, what was asked and served, the status, tokens,
 * timings and cost, handed to the batched usage writer and to the limit ticket. Tokens: as reported by the
 * upstream; estimated when it reported none or the stream was cut (estimate-usage.ts); 0 with source `reported`
 * for refusals and upstream errors, which generate nothing; estimated prompt tokens for a call abandoned by the
 * client while the upstream was working on it.
 */
import { countConversationTokens } from '../../translators/count-tokens.ts';
import type { Usage } from '../../translators/model.ts';
import type { Gateway } from '../gateway.ts';
import type { CallAnswer, LimitTicket } from '../limits/limit-guard.ts';
import { completeUsage } from '../metering/estimate-usage.ts';
import { withUsage } from '../metering/usage-record.ts';
import type { PriceOverride } from '../../core/ai/price-of.ts';
import type { Attempt } from './attempt-upstreams.ts';
import type { GatewayCall } from './gateway-call.ts';
import type { RequestPreparer } from './prepare-request.ts';
import { storableText } from '../../core/storable-text.ts';
import { awaitDurable } from './await-durable.ts';

export interface CallEnd {
  status: number;
  errorCode: string | null;
  attempt?: Attempt;
  /** performance.now() of the first byte sent to the client, if any. */
  firstByteAt?: number;
  ticket?: LimitTicket;
  /** Usage of an answer that was relayed (absent for refusals and upstream errors). */
  usage?: Usage;
  complete?: boolean;
  promptTokens?: () => number;
  producedText?: () => string;
  /** What the client got, handed to the limit ticket for call-body logging. */
  answer?: CallAnswer;
}

const NOTHING: Usage = { source: 'reported', inputTokens: 0, outputTokens: 0 };
const DONE: Promise<void> = Promise.resolve();

export class CallRecorder {
  #gw: Gateway;
  #call: GatewayCall;
  alias: string | null = null;
  #done = false;

  constructor(gw: Gateway, call: GatewayCall) {
    this.#gw = gw;
    this.#call = call;
  }

  promptTokens(preparer: RequestPreparer): number {
    return countConversationTokens(preparer.conversation());
  }

  /**
   * Builds the record and hands it to the writer; resolves once the writer has it durable (committed or journaled),
   * which the pipeline waits for before the answer's last bytes (at most DURABLE_WAIT_MS, await-durable.ts). Never
   * rejects: a record that cannot be made durable is logged and the answer completes anyway.
   */
  finish(end: CallEnd): Promise<void> {
    if (this.#done) return DONE;
    this.#done = true;
    const call = this.#call;
    const now = performance.now();
    let usage: Usage = NOTHING;
    if (end.usage) usage = completeUsage(end.usage, end.complete === true, end.promptTokens ?? (() => 0), end.producedText ?? (() => ''));
    else if (end.status === 499 && end.attempt && end.promptTokens) usage = completeUsage({ source: 'unknown' }, false, end.promptTokens, () => '');
    const a = end.attempt;
    const base = {
      at: call.at,
      keyId: call.key.id,
      teamId: call.key.teamId,
      // Made storable here whatever their origin: one unstorable string must never hold the writer (issue 11 point 4).
      model: storableText(call.model),
      servedModel: a ? storableText(a.step.model) : null,
      alias: this.alias === null ? null : storableText(this.alias),
      provider: a ? a.account.provider : null,
      accountId: a ? a.account.id : null,
      clientStyle: call.clientStyle,
      upstreamStyle: a ? a.prepared.upstreamStyle : null,
      status: end.status,
      errorCode: end.errorCode === null ? null : storableText(end.errorCode),
      latencyMs: now - call.startedAt,
      ttfbMs: end.firstByteAt === undefined ? null : end.firstByteAt - call.startedAt,
      stream: call.stream,
    };
    const gw = this.#gw;
    const facts = call.facts;
    if (facts) {
      facts.model = base.servedModel ?? base.model;
      facts.upstream = base.provider ?? undefined;
    }
    const write = (overrides: readonly PriceOverride[]): Promise<void> => {
      const record = withUsage(base, usage, overrides);
      const metrics = gw.ctx.metrics;
      if (metrics.enabled) metrics.gateway.call(record);
      let written: unknown;
      try {
        written = gw.usage.write(record);
      } catch (err) {
        written = Promise.reject(err);
      }
      end.ticket?.settle(record, end.answer);
      return awaitDurable(written, gw.ctx.log, { keyId: record.keyId, status: record.status });
    };
    const prices = gw.prices();
    if (!(prices instanceof Promise)) return write(prices);
    return prices.then(write, (err: unknown) => gw.ctx.log.error({ err }, 'price overrides could not be read; usage record not written'));
  }
}
