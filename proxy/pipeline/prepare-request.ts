/**
 * Builds the upstream request of a call for one (model, account) attempt.
 *
 * Same style (DESIGN.md §3 step 7): the client's bytes go up untouched, except the `model` when an alias was
 * resolved (a byte-preserving edit) and, for a chat stream whose client did not ask for usage, an added
 * `stream_options.include_usage` whose usage chunk the gateway then hides from the client (reference §E7). The
 * client's `anthropic-version`/`anthropic-beta` headers are kept for a messages upstream.
 *
 * Different styles: the body is decoded once into the internal model and encoded for each upstream style tried;
 * parameters the upstream style cannot express come back as warnings (sent as `X-Svc-Warning`) or as a
 * TranslationError (400) when dropping them would change the meaning.
 *
 * Compression (DESIGN.md §3 step 6, proxy/compression/call-compressor.ts) comes first: when it changes the
 * conversation, the compressed conversation is encoded for the upstream, same style or not; otherwise (mode `off`,
 * `audit-only`, or nothing to compress) the request is prepared exactly as above.
 */
import type { Conversation, StyleName } from '../../translators/model.ts';
import { getStyle } from '../../translators/styles.ts';
import type { UpstreamAccount } from '../accounts/upstream-account.ts';
import type { GatewayCall } from './gateway-call.ts';
import { checkMedia } from './check-media.ts';
import { CallCompressor } from '../compression/call-compressor.ts';
import { addTopLevelBytes, addTopLevelField, replaceNestedValue, replaceTopLevelValue } from './rewrite-json-body.ts';

export interface PreparedRequest {
  same: boolean;
  upstreamStyle: StyleName;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
  warnings: readonly string[];
  /** chat passthrough: the usage chunk was asked for by the gateway, not the client. */
  hideUsageChunk: boolean;
  /** Translated: the client's decoded request, for the answer's encoder (renamed tools, echoed fields). */
  request?: Conversation;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const KEEP_HEADERS = ['anthropic-version', 'anthropic-beta'];
const INCLUDE_USAGE = Buffer.from('"stream_options":{"include_usage":true}');

/** A generative countTokens body whose nested request names the resolved model; undefined when it names none. */
function countRequestWithModel(call: GatewayCall, model: string): string | undefined {
  for (const outer of ['generateContentRequest', 'generate_content_request']) {
    const inner = call.body[outer] as { model?: unknown } | null | undefined;
    if (typeof inner?.model === 'string') return replaceNestedValue(call.raw.toString('utf8'), outer, 'model', `models/${model}`);
  }
  return undefined;
}

export class RequestPreparer {
  #call: GatewayCall;
  #conv: Conversation | undefined;
  #checked = false;
  #compressor: CallCompressor | undefined;

  constructor(call: GatewayCall) {
    this.#call = call;
    if (call.compression) this.#compressor = new CallCompressor(call, call.compression, () => this.conversation());
  }

  /** The call being prepared (rotation reads its session key). */
  get call(): GatewayCall {
    return this.#call;
  }

  /** The call in the internal model (decoded once; throws a TranslationError on a body it cannot read). */
  conversation(): Conversation {
    if (this.#conv === undefined) {
      const conv = getStyle(this.#call.clientStyle).decodeRequest(this.#call.body);
      conv.model = this.#call.model;
      conv.stream = this.#call.stream;
      this.#conv = conv;
    }
    return this.#conv;
  }

  prepare(model: string, account: UpstreamAccount): PreparedRequest {
    const call = this.#call;
    const profile = account.profile;
    const path = call.op === 'count' && profile.countPath ? profile.countPath(model) : profile.generatePath(model, call.stream);
    const compression = this.#compressor?.forAttempt(model, account.style, account.provider);
    if (compression?.conversation) return this.#encode(compression.conversation, model, account, path, compression.warnings);
    if (account.style === call.clientStyle) return this.#same(model, account, path, compression?.warnings);
    return this.#encode(this.conversation(), model, account, path, compression?.warnings);
  }

  #encode(base: Conversation, model: string, account: UpstreamAccount, path: string, extraWarnings: readonly string[] = []): PreparedRequest {
    const call = this.#call;
    // Checked once, and only when translating: a same-style upstream judges its own input.
    if (!this.#checked && account.style !== call.clientStyle) {
      checkMedia(base);
      this.#checked = true;
    }
    // The decoder's notes are about translating; a compressed same-style call keeps what they speak of.
    const notes = account.style === call.clientStyle ? [] : base.warnings;
    const conv: Conversation = { ...base, model, warnings: [...notes, ...extraWarnings] };
    const body = JSON.stringify(getStyle(account.style).encodeRequest(conv));
    if (account.style !== call.clientStyle) {
      return { same: false, upstreamStyle: account.style, path, headers: JSON_HEADERS, body, warnings: conv.warnings, hideUsageChunk: false, request: base };
    }
    // A compressed same-style call: the answer still passes through untouched; the chat encoder always asks for
    // the usage chunk, hidden from a client that did not.
    const hideUsageChunk = call.clientStyle === 'chat' && call.stream && !call.includeUsage;
    return { same: true, upstreamStyle: account.style, path, headers: this.#sameHeaders(), body, warnings: conv.warnings, hideUsageChunk };
  }

  #same(model: string, account: UpstreamAccount, path: string, warnings: readonly string[] = []): PreparedRequest {
    const call = this.#call;
    let text: string | undefined;
    let body: Buffer | undefined;
    // The generative-language style names the model in the path; the others in the body.
    if (model !== call.model && call.clientStyle !== 'generative') text = replaceTopLevelValue(call.raw.toString('utf8'), 'model', model);
    // …except a countTokens body, which may name it again as `generateContentRequest.model` (`models/<name>`).
    else if (model !== call.model && call.op === 'count') text = countRequestWithModel(call, model);
    const hideUsageChunk = call.clientStyle === 'chat' && call.stream && !call.includeUsage && call.op === 'generate';
    if (hideUsageChunk) {
      const so = call.body.stream_options;
      if (so !== undefined && so !== null) {
        text = replaceTopLevelValue(text ?? call.raw.toString('utf8'), 'stream_options', { ...(so as object), include_usage: true });
      } else if (text !== undefined) text = addTopLevelField(text, 'stream_options', { include_usage: true });
      else body = addTopLevelBytes(call.raw, INCLUDE_USAGE);
    }
    return { same: true, upstreamStyle: account.style, path, headers: this.#sameHeaders(), body: text ?? body ?? call.raw, warnings, hideUsageChunk };
  }

  /** A same-style upstream gets the client's version headers (messages `anthropic-version`/`anthropic-beta`). */
  #sameHeaders(): Record<string, string> {
    let headers: Record<string, string> = JSON_HEADERS;
    for (const name of KEEP_HEADERS) {
      const v = this.#call.headers[name];
      if (typeof v === 'string') headers = { ...headers, [name]: v };
    }
    return headers;
  }
}
