// Content parts between the generative-language style and the internal model, shared by the request, response
// and stream translators.
//
// Rules:
// - `thoughtSignature` belongs to the part. On a `functionCall` it becomes the call's signature; on a thought it
//   becomes the thinking signature; on a plain text part (Gemini 3 puts one on the first or on an empty trailing
//   text part) it becomes an empty thinking part right after the text, so that it survives a round trip.
// - `functionResponse.response` must be an object. Google documents `output` for the result and `error` for a
//   failure; text results are wrapped as `{output}` / `{error}` and unwrapped again (`result`, which some gateways
//   send, is unwrapped too).
// - Image URLs: Gemini cannot fetch arbitrary URLs into `inlineData`, and translators do no I/O, so an http(s) URL
//   is sent as `fileData.fileUri` (newer API versions accept public or signed URLs); a `data:` URL is split into
//   `inlineData`. The media type of a URL without one is guessed from its extension.
// @see https://ai.google.dev/api/caching#Part

import type { ImagePart, MediaSource, Part, StyleName, ToolCallPart, ToolResultContent, ToolResultPart } from '../model.ts';
import { parseDataUrl } from '../data-url.ts';
import { isMadeUpGenerativeCallId } from './generative-call-id.ts';
import type { GenerativeFunctionCall, GenerativeFunctionResponse, GenerativeObject, GenerativePart } from './types.ts';

const ORIGIN: StyleName = 'generative';

/** Placeholder accepted in place of a real thought signature on replayed calls (Gemini 3 requires one). */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** Where Gemini's own files live; other URIs are plain URLs. */
const GOOGLE_FILE = /^(gs:\/\/|files\/|https:\/\/generativelanguage\.googleapis\.com\/)/;

const EXTENSION_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic',
  pdf: 'application/pdf', mp3: 'audio/mpeg', wav: 'audio/wav', txt: 'text/plain',
};

export interface PartDecodeContext {
  /** Id for the k-th call (0-based, in part order) that came without one. */
  callId: (call: GenerativeFunctionCall, k: number) => string;
  /** Id of a result that came without one (paired by name and order by the caller). */
  resultId: (response: GenerativeFunctionResponse) => string;
  warn: (message: string) => void;
}

function mediaPart(mediaType: string, source: MediaSource): Part {
  if (mediaType.startsWith('image/')) return { type: 'image', source };
  if (mediaType.startsWith('audio/')) return { type: 'audio', source };
  return { type: 'document', source };
}

function fileSource(uri: string, mediaType: string | undefined): MediaSource {
  if (GOOGLE_FILE.test(uri)) return mediaType === undefined ? { kind: 'file', fileId: uri } : { kind: 'file', fileId: uri, mediaType };
  return mediaType === undefined ? { kind: 'url', url: uri } : { kind: 'url', url: uri, mediaType };
}

function resultContent(response: GenerativeObject): { content: ToolResultContent[]; isError: boolean } {
  const keys = Object.keys(response);
  if (keys.length === 1) {
    const value = response[keys[0]];
    if (typeof value === 'string' && (keys[0] === 'output' || keys[0] === 'result')) return { content: [{ type: 'text', text: value }], isError: false };
    if (typeof value === 'string' && keys[0] === 'error') return { content: [{ type: 'text', text: value }], isError: true };
  }
  return { content: [{ type: 'text', text: JSON.stringify(response) }], isError: false };
}

export function decodeGenerativeParts(parts: GenerativePart[] | undefined, ctx: PartDecodeContext): Part[] {
  const out: Part[] = [];
  let calls = 0;
  for (const p of parts ?? []) {
    const raw = p.thoughtSignature;
    const sig = typeof raw === 'string' && raw !== '' && raw !== SKIP_THOUGHT_SIGNATURE ? raw : undefined;
    if (p.functionCall !== undefined) {
      const args = p.functionCall.args ?? {};
      const call: ToolCallPart = {
        type: 'tool_call', id: p.functionCall.id ?? ctx.callId(p.functionCall, calls), name: p.functionCall.name,
        arguments: args, argumentsText: JSON.stringify(args),
      };
      calls++;
      if (sig !== undefined) Object.assign(call, { signature: sig, origin: ORIGIN });
      out.push(call);
    } else if (p.functionResponse !== undefined) {
      const fr = p.functionResponse;
      const response = typeof fr.response === 'object' && fr.response !== null ? fr.response : {};
      const result: ToolResultPart = { type: 'tool_result', callId: fr.id ?? ctx.resultId(fr), name: fr.name, ...resultContent(response) };
      out.push(result);
    } else if (typeof p.text === 'string') {
      if (p.thought === true) {
        out.push(sig === undefined ? { type: 'thinking', text: p.text, origin: ORIGIN } : { type: 'thinking', text: p.text, signature: sig, origin: ORIGIN });
        continue;
      }
      if (p.text !== '') out.push({ type: 'text', text: p.text });
      if (sig !== undefined) out.push({ type: 'thinking', text: '', signature: sig, origin: ORIGIN });
    } else if (p.inlineData !== undefined) {
      const { mimeType, data } = p.inlineData;
      out.push(mediaPart(mimeType, { kind: 'base64', mediaType: mimeType, data }));
    } else if (p.fileData !== undefined) {
      const { mimeType, fileUri } = p.fileData;
      out.push(mediaPart(mimeType ?? '', fileSource(fileUri, mimeType)));
    } else {
      ctx.warn(`A part of kind ${Object.keys(p).join(',') || 'empty'} has no equivalent and was dropped.`);
    }
  }
  return out;
}

function guessType(url: string, fallback: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  return (ext !== undefined ? EXTENSION_TYPES[ext] : undefined) ?? fallback;
}

/** A media source as a part: bytes inline, URLs and provider files as `fileData`, document text as text. */
export function encodeGenerativeMedia(source: MediaSource, fallbackType: string): GenerativePart {
  switch (source.kind) {
    case 'base64':
      return { inlineData: { mimeType: source.mediaType, data: source.data } };
    case 'text':
      return { text: source.text };
    case 'file':
      return { fileData: { mimeType: source.mediaType ?? fallbackType, fileUri: source.fileId } };
    case 'url': {
      const inline = parseDataUrl(source.url);
      if (inline !== undefined) return { inlineData: { mimeType: inline.mediaType, data: inline.data } };
      return { fileData: { mimeType: source.mediaType ?? guessType(source.url, fallbackType), fileUri: source.url } };
    }
  }
}

/** `withId`: send the call id (see generativeAcceptsCallIds); made-up ids are never sent. */
export function encodeGenerativeCall(part: ToolCallPart, withId = true): GenerativePart {
  const call: GenerativeFunctionCall = { name: part.name, args: part.arguments as GenerativeObject };
  if (withId && !isMadeUpGenerativeCallId(part.id)) call.id = part.id;
  const out: GenerativePart = { functionCall: call };
  if (part.signature !== undefined && part.origin === ORIGIN) out.thoughtSignature = part.signature;
  return out;
}

/** A tool result as a `functionResponse`, plus its images/documents as parts of their own (sent after it). */
export function encodeGenerativeResult(part: ToolResultPart, name: string, withId = true): GenerativePart[] {
  const text = part.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  let response: GenerativeObject;
  let parsed: unknown;
  try {
    parsed = part.isError ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) response = parsed as GenerativeObject;
  else response = part.isError ? { error: text } : { output: text };
  const fr: GenerativeFunctionResponse = { name, response };
  if (withId && !isMadeUpGenerativeCallId(part.callId)) fr.id = part.callId;
  const media = part.content.filter((c): c is ImagePart | Extract<ToolResultContent, { type: 'document' }> => c.type !== 'text');
  return [{ functionResponse: fr }, ...media.map((m) => encodeGenerativeMedia(m.source, m.type === 'image' ? 'image/jpeg' : 'application/pdf'))];
}

/** Puts each bare signature part (`{text:"",thoughtSignature}`) back on the text part before it. */
export function attachGenerativeSignatures(parts: GenerativePart[]): GenerativePart[] {
  const out: GenerativePart[] = [];
  for (const p of parts) {
    const prev = out.at(-1);
    const bare = p.text === '' && p.thought !== true && p.thoughtSignature !== undefined;
    if (bare && prev !== undefined && typeof prev.text === 'string' && prev.thought !== true && prev.thoughtSignature === undefined) {
      prev.thoughtSignature = p.thoughtSignature;
    } else out.push(p);
  }
  return out;
}
