// Reply → generative-language `GenerateContentResponse` (non-streamed), one candidate.
// Thinking from another family is sent as a thought summary without its signature (a Gemini client may show it;
// the signature would mean nothing to Gemini). Calls carry their id so that SDKs can echo it in the response.
// @see https://ai.google.dev/api/generate-content#generatecontentresponse

import type { Part, Reply } from '../model.ts';
import { toGenerativeUsage } from './convert-generative-usage.ts';
import { attachGenerativeSignatures, encodeGenerativeCall, encodeGenerativeMedia } from './generative-parts.ts';
import { GENERATIVE_FINISH_FOR_STOP } from './map-generative-finish-reason.ts';
import type { GenerateContentResponse, GenerativeCandidate, GenerativePart } from './types.ts';

/** One assistant part as a response part; a made-up id is left out, a foreign one kept. */
export function encodeGenerativeReplyPart(part: Part): GenerativePart[] {
  switch (part.type) {
    case 'text':
    case 'refusal':
      return part.text === '' ? [] : [{ text: part.text }];
    case 'thinking': {
      if (part.text === '' && (part.signature === undefined || part.origin !== 'generative')) return [];
      const p: GenerativePart = part.text === '' ? { text: '' } : { text: part.text, thought: true };
      if (part.signature !== undefined && part.origin === 'generative') p.thoughtSignature = part.signature;
      return [p];
    }
    case 'tool_call':
      return [encodeGenerativeCall(part)];
    case 'image':
      return [encodeGenerativeMedia(part.source, 'image/png')];
    case 'audio':
      return [encodeGenerativeMedia(part.source, 'audio/wav')];
    case 'document':
      return [encodeGenerativeMedia(part.source, 'application/pdf')];
    case 'tool_result':
    case 'redacted_thinking':
      return [];
  }
}

export function encodeGenerativeResponse(reply: Reply): GenerateContentResponse {
  const parts = attachGenerativeSignatures(reply.parts.flatMap(encodeGenerativeReplyPart));
  const candidate: GenerativeCandidate = {
    content: { role: 'model', parts: parts.length > 0 ? parts : [{ text: '' }] },
    finishReason: GENERATIVE_FINISH_FOR_STOP[reply.stopReason],
    index: 0,
  };
  const res: GenerateContentResponse = { candidates: [candidate] };
  const usage = toGenerativeUsage(reply.usage);
  if (usage !== undefined) res.usageMetadata = usage;
  res.modelVersion = reply.model;
  res.responseId = reply.id;
  return res;
}
