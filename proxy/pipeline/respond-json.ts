/**
 * Non-streamed answers (and upstream error answers) once an attempt is final. A same-style answer is sent byte for
 * byte with its usage read from it; a cross-style answer is decoded into the internal Reply and encoded for the
 * client. An upstream error is passed through as is to a same-style client and re-expressed in the client's
 * shape (with its status and Retry-After) otherwise.
 */
import type { Conversation, StyleName, UpstreamError, Usage } from '../../translators/model.ts';
import { getStyle } from '../../translators/styles.ts';
import { usageOfRaw } from './usage-taps.ts';

export interface JsonAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
  usage: Usage;
  error?: UpstreamError;
}

function parse(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return undefined;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

const OPEN_BRACE = /^\s*\{/;

export function successAnswer(raw: Buffer, upstreamStyle: StyleName, clientStyle: StyleName, request?: Conversation): JsonAnswer | undefined {
  if (upstreamStyle === clientStyle) {
    // Passed through as it came; only its usage member is read.
    const text = raw.toString('utf8');
    if (!OPEN_BRACE.test(text)) return undefined;
    return { status: 200, headers: { 'content-type': JSON_TYPE }, body: raw, usage: usageOfRaw(clientStyle, text) };
  }
  const json = parse(raw);
  if (json === undefined || typeof json !== 'object' || json === null) return undefined;
  // An answer the upstream style's decoder cannot read is the upstream's fault (502), not the client's.
  let reply: ReturnType<ReturnType<typeof getStyle>['decodeResponse']>;
  try {
    reply = getStyle(upstreamStyle).decodeResponse(json);
  } catch {
    return undefined;
  }
  const body = JSON.stringify(getStyle(clientStyle).encodeResponse(reply, { request }));
  return { status: 200, headers: { 'content-type': JSON_TYPE }, body, usage: reply.usage };
}

export function upstreamErrorAnswer(
  status: number, raw: Buffer, headers: Record<string, string | string[] | undefined>, upstreamStyle: StyleName, clientStyle: StyleName,
): JsonAnswer {
  const json = parse(raw);
  const error = getStyle(upstreamStyle).decodeError(status, json ?? raw.toString('utf8'), headers);
  if (upstreamStyle === clientStyle && json !== undefined) {
    const out: Record<string, string> = { 'content-type': JSON_TYPE };
    const retry = headers['retry-after'];
    if (typeof retry === 'string') out['retry-after'] = retry;
    return { status, headers: out, body: raw, usage: { source: 'unknown' }, error };
  }
  const enc = getStyle(clientStyle).encodeError(error);
  return { status: enc.status, headers: { 'content-type': JSON_TYPE, ...enc.headers }, body: JSON.stringify(enc.body), usage: { source: 'unknown' }, error };
}
