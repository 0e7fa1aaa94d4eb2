/**
 * Compression of one gateway call, attempt by attempt (DESIGN.md §3 step 6: after the account is picked, before
 * translation). For each (model, upstream style) it works out the mode (compression-plan.ts) and then:
 * - `off`: nothing; the request is prepared exactly as without compression (a same-style call passes its bytes).
 * - `audit-only`: nothing on the request; the answer says `X-Svc-Compression: mode=audit-only`, and once the
 *   answer is complete the compressor runs and its savings are recorded.
 * - `on`: the conversation (decoded once) is compressed; once it is past the compressor's first threshold, the
 *   compressed conversation is what the preparer encodes, same style or not. The answer says
 *   `mode=on; before=N; after=M; estimated`.
 * A failure of the compressor never fails the call: the request goes uncompressed with an `X-Svc-Warning`.
 *
 * Summaries (settings `summary`, summary-store.ts): in `on`, from the second growth step on, the compressor replaces
 * each span of old turns (a chain, compressor/summary-span.ts) by its summary when one is ready for exactly those
 * turns; after the answer the span the next step will use is queued for summarising when its call pays
 * (compressor/frontier.ts `summaryPays`, at the summary model's prices relative to the call's model: summary-prices.ts).
 * A summary that failed (the model's error, the key over its limit) leaves those turns to the other steps, and the
 * answer says so in `X-Svc-Warning`.
 */
import type { Conversation, StyleName } from '../../translators/model.ts';
import { compressConversation, type CompressResult } from '../../compressor/compress-conversation.ts';
import type { CompressOptions } from '../../compressor/compress-options.ts';
import { summaryToMake, type SummaryOptions } from '../../compressor/summary-span.ts';
import type { PriceOverride } from '../../core/ai/price-of.ts';
import { DEFAULT_SUMMARY_MIN_TOKENS, type SummarySettings } from '../../core/ai/compression-settings.ts';
import type { GatewayCall } from '../pipeline/gateway-call.ts';
import { sessionKeyOf } from '../rotation/session-key.ts';
import type { CallCompression } from './compression-service.ts';
import { headerMode, planCompression } from './compression-plan.ts';
import { newRecordId } from './compression-records.ts';
import { summaryCallPrices } from './summary-prices.ts';

export interface AttemptCompression {
  /** The conversation to encode instead of the client's request; undefined = prepare the request as usual. */
  conversation?: Conversation;
  warnings: readonly string[];
}

const NONE: AttemptCompression = { warnings: [] };

/**
 * A decoder's warning that names a place in the conversation (`messages[3]`, `contents[2]`, `input[5]`) is about a
 * part the internal model could not hold; the others are about the request (server tools, parameters), which the
 * encoder of the same style keeps (translators/*: decode-*-request.ts).
 */
const LOST_PART = /\b(?:messages|contents|input)\[\d+\]/;

interface Pending {
  model: string;
  provider: string;
  mode: 'audit-only' | 'on';
  options: CompressOptions;
  /** audit-only: the upstream style, to tell whether `on` would have compressed at all. */
  upstreamStyle?: StyleName;
  result?: CompressResult;
  /** on, with summaries configured: the setting, to queue the next span after the answer. */
  summary?: SummarySettings;
}

export function compressionHeaderValue(r: CompressResult): string {
  return `mode=on; before=${r.beforeTokens}; after=${r.afterTokens}; estimated`;
}

export class CallCompressor {
  #call: GatewayCall;
  #handle: CallCompression;
  #conversation: () => Conversation;
  #results = new Map<string, CompressResult>();
  /** What the last attempt did, recorded once the answer is complete. */
  #pending: Pending | undefined;
  #scheduled = false;

  constructor(call: GatewayCall, handle: CallCompression, conversation: () => Conversation) {
    this.#call = call;
    this.#handle = handle;
    this.#conversation = conversation;
  }

  forAttempt(model: string, upstreamStyle: StyleName, provider: string): AttemptCompression {
    const call = this.#call;
    if (call.op !== 'generate') return NONE;
    // An unknown header value is the caller's mistake: 400 before any upstream call.
    const header = headerMode(call.headers);
    const settings = this.#handle.settings();
    // The usual case costs no more than this: nothing is planned, decoded or allocated.
    if (settings.mode === 'off' || header === 'off') return this.#off();
    const plan = planCompression(settings, call.key, header, model, upstreamStyle);
    if (plan.mode === 'off') return this.#off();
    this.#schedule();
    if (plan.mode === 'audit-only') {
      this.#handle.answerHeader('mode=audit-only');
      this.#handle.outcome = { mode: 'audit-only' };
      this.#pending = { model, provider, mode: 'audit-only', options: plan.options, upstreamStyle };
      return NONE;
    }
    let result: CompressResult;
    const summary = this.#handle.settings().summary ?? undefined;
    try {
      const lost = this.#lostInReencoding(upstreamStyle);
      if (lost > 0) {
        this.#off();
        return { warnings: [`The conversation was sent uncompressed, as the client sent it: it holds ${lost} part(s) the gateway passes through but cannot re-encode.`] };
      }
      result = this.#compress(plan.options, summary);
    } catch (err) {
      this.#off();
      return { warnings: [`The conversation was sent uncompressed: ${err instanceof Error ? err.message : String(err)}`] };
    }
    this.#handle.answerHeader(compressionHeaderValue(result));
    this.#handle.outcome = { mode: 'on', tokensBefore: result.beforeTokens, tokensAfter: result.afterTokens };
    this.#pending = { model, provider, mode: 'on', options: plan.options, result, summary };
    // Once the compressor is active (a frontier), every turn is encoded from the model, changed or not, so that the
    // bytes of the history stay the same from turn to turn; below it, the client's bytes pass as they are.
    return result.frontier.index === 0 ? NONE : { conversation: result.conversation, warnings: this.#summaryWarnings(result) };
  }

  /** The summary options of this call: summaries configured and a node that can make them. */
  #summaryOptions(summary: SummarySettings | undefined): SummaryOptions | undefined {
    const store = this.#handle.summaries;
    if (summary === undefined || !store.enabled) return undefined;
    return { lookup: (hash) => store.lookup(hash), minTokens: summary.min_tokens ?? DEFAULT_SUMMARY_MIN_TOKENS };
  }

  #summaryWarnings(r: CompressResult): string[] {
    const span = r.summary;
    if (span === undefined || span.used) return [];
    const failure = this.#handle.summaries.failure(span.hash);
    if (failure === undefined) return [];
    return [`Turns ${span.start + 1} to ${span.end} were not summarised (${failure}); the other compression steps still apply to them.`];
  }

  /**
   * After the answer: the span the next growth step will replace, queued for summarising (off the request path) when
   * its call pays at the prices of the summary model and of this call's model.
   */
  #queueNextSummary(p: Pending, r: CompressResult): void {
    const opts = this.#summaryOptions(p.summary);
    const summary = p.summary;
    if (opts === undefined || summary === undefined || r.frontier.level < 0 || !this.#handle.answeredOk) return;
    const store = this.#handle.summaries;
    const queue = (overrides: readonly PriceOverride[]) => {
      const turns = this.#conversation().turns;
      const prices = summaryCallPrices(summary.model, p.model, overrides);
      const next = summaryToMake(turns, r.frontier, r.beforeTokens, p.options.growth, opts, prices);
      if (next === undefined) return;
      const input = { turns: turns.slice(next.span.start, next.span.end), start: next.span.start, earlier: next.earlier };
      store.request({ span: next.span, input, model: summary.model, keyId: summary.key_id });
    };
    const overrides = store.priceOverrides();
    if (!(overrides instanceof Promise)) return queue(overrides);
    // The price table is being read (the first call of a node, or after a price change): decide once it is there,
    // with the list prices alone if it cannot be read. A summary not queued is only a saving not made.
    void overrides.then(queue, () => queue([])).catch(() => undefined);
  }

  /**
   * For a same-style upstream, what decoding could not hold (blocks of newer API versions, say): re-encoding would
   * drop it, so such a conversation goes up as the client sent it. A translated call loses it anyway (with a
   * warning of its own).
   */
  #lostInReencoding(upstreamStyle: StyleName): number {
    if (upstreamStyle !== this.#call.clientStyle) return 0;
    return this.#conversation().warnings.filter((w) => LOST_PART.test(w)).length;
  }

  /** This attempt does not go through the compressor (an earlier attempt of the call may have). */
  #off(): AttemptCompression {
    this.#handle.outcome = undefined;
    if (this.#pending !== undefined) {
      this.#handle.answerHeader(undefined);
      this.#pending = undefined;
    }
    return NONE;
  }

  /** One compression per set of options (attempts of the same thresholds share it). */
  #compress(options: CompressOptions, summary?: SummarySettings): CompressResult {
    const id = JSON.stringify(options);
    let r = this.#results.get(id);
    if (r === undefined) {
      r = compressConversation(this.#conversation(), options, this.#summaryOptions(summary));
      this.#results.set(id, r);
    }
    return r;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#handle.afterAnswer(() => this.#record());
  }

  #record(): void {
    const p = this.#pending;
    if (p === undefined) return;
    let r = p.result;
    if (r === undefined) {
      try {
        // What `on` would have sent uncompressed saves nothing and is not recorded.
        if (p.upstreamStyle !== undefined && this.#lostInReencoding(p.upstreamStyle) > 0) return;
        r = this.#compress(p.options);
      } catch {
        return;
      }
    }
    if (p.mode === 'on') this.#queueNextSummary(p, r);
    const call = this.#call;
    this.#handle.record({
      recordId: newRecordId(), at: call.at, keyId: call.key.id, teamId: call.key.teamId, model: p.model, provider: p.provider,
      session: sessionKeyOf(call) ?? null, mode: p.mode, tokensBefore: r.beforeTokens, tokensAfter: r.afterTokens,
      level: r.frontier.level, rewriteTokens: r.frontier.stepRewritten, saved: { ...r.saved },
    });
  }
}
