/**
 * The one usage record of a call (issue 3 point 6): who called, what was asked and served, the status, tokens,
 * timings and cost, handed to the batched usage writer and to the limit ticket. Tokens: as reported by the
 * upstream; estimated when it reported none or the stream was cut (estimate-usage.ts); 0 with source `reported`
 * for refusals and upstream errors, which generate nothing; estimated prompt tokens for a call abandoned by the
 * client while the upstream was working on it.
 *
 * A streamed call also has an open row (proxy/metering/open-call.ts) under the id its record will have: queued
 * when an upstream is asked (in parallel with that request), awaited before the answer's first byte, deleted by
 * the record's write. It is what records the call if the node dies before the record is written.
 */
import { randomUUID } from 'node:crypto';
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
import { estimateCall } from '../limits/call-estimate.ts';
import type { OpenCall } from '../metering/open-call.ts';

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
  #recordId: string | undefined;
  /** The latest open row's write, while the call is open. */
  #opened: Promise<void> | undefined;

  constructor(gw: Gateway, call: GatewayCall) {
    this.#gw = gw;
    this.#call = call;
  }

  /** The id of the call's usage record, chosen when first needed (an open row is written under it). */
  get recordId(): string {
    return (this.#recordId ??= randomUUID());
  }

  /**
   * Queues the open row of a streamed call for the attempt about to be sent (again for each attempt: the row then
   * names the upstream that answers). Never throws; opened() is what waits.
   */
  open(attempt: Attempt): void {
    if (this.#done) return;
    const call = this.#call;
    const gw = this.#gw;
    const write = (overrides: readonly PriceOverride[]): Promise<void> => {
      // Prices read after the call ended (a cold cache): its record is on its way, no open row is needed.
      if (this.#done) return DONE;
      // The reservation estimate for the serving model (call-estimate.ts), priced like the record will be.
      const estimate = estimateCall(call.clientStyle, call.body, Math.ceil(call.raw.length / 4), [attempt.step.model], overrides);
      const open: OpenCall = {
        at: call.at,
        keyId: call.key.id,
        teamId: call.key.teamId,
        model: storableText(call.model),
        servedModel: storableText(attempt.step.model),
        alias: this.alias === null ? null : storableText(this.alias),
        provider: attempt.account.provider,
        accountId: attempt.account.id,
        clientStyle: call.clientStyle,
        upstreamStyle: attempt.prepared.upstreamStyle,
        stream: call.stream,
        inputTokens: estimate.inputTokens,
        outputTokens: estimate.outputTokens,
        costUsd: estimate.dollars,
      };
      return gw.usage.open(this.recordId, open);
    };
    const prices = gw.prices();
    this.#opened = prices instanceof Promise ? prices.then(write) : write(prices);
  }

  /** Resolves once the open row is durable (at most DURABLE_WAIT_MS, await-durable.ts); at once without one. */
  opened(): Promise<void> {
    const opened = this.#opened;
    if (opened === undefined) return DONE;
    return awaitDurable(opened, this.#gw.ctx.log, { keyId: this.#call.key.id, row: 'open_call' });
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
      // What the compressor did to the attempt that answered (tokens before and after, docs/compression.md).
      ...(a && call.compression?.outcome ? { compression: call.compression.outcome } : {}),
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
        written = gw.usage.write(record, this.#opened === undefined ? undefined : this.recordId);
      } catch (err) {
        written = Promise.reject(err);
      }
      end.ticket?.settle(record, end.answer);
      return awaitDurable(written, gw.ctx.log, { keyId: record.keyId, status: record.status });
    };
    const prices = gw.prices();
    if (!(prices instanceof Promise)) return write(prices);
    // Tokens are what must not be lost: without the overrides the record is priced at list prices (and it closes
    // its open row, which would otherwise be renewed until the node stops).
    return prices.then(write, (err: unknown) => {
      gw.ctx.log.error({ err }, 'price overrides could not be read; usage record priced at list prices');
      return write([]);
    });
  }
}
