// Generative-language `GenerateContentResponse` (non-streamed) → Reply. Only the first candidate is read.
// A blocked prompt has no candidates and a `promptFeedback.blockReason`: a content-filter stop with no parts.
// @see https://ai.google.dev/api/generate-content#generatecontentresponse

import type { Reply, StopReason } from '../model.ts';
import { translationError } from '../translation-error.ts';
import { convertGenerativeUsage } from './convert-generative-usage.ts';
import { generativeCallId, stableHash } from './generative-call-id.ts';
import { decodeGenerativeParts } from './generative-parts.ts';
import { GENERATIVE_BLOCK_REASONS, mapGenerativeFinishReason } from './map-generative-finish-reason.ts';
import { normalizeGenerativeKeys } from './normalize-generative-keys.ts';
import type { GenerateContentResponse, GenerativeBlockReason } from './types.ts';

export function decodeGenerativeResponse(json: unknown): Reply {
  const res = normalizeGenerativeKeys(json);
  if (typeof res !== 'object' || res === null || Array.isArray(res)) {
    throw translationError('The generative-language response is not a JSON object.');
  }
  const r = res as GenerateContentResponse;
  const seed = r.responseId ?? stableHash(JSON.stringify(r.candidates ?? []));
  const candidate = r.candidates?.[0];
  const parts = decodeGenerativeParts(candidate?.content?.parts, {
    callId: (_call, k) => generativeCallId(seed, k),
    resultId: (fr) => fr.name,
    warn: () => undefined,
  });
  let stopReason: StopReason;
  const block = r.promptFeedback?.blockReason;
  if (candidate === undefined && block !== undefined) {
    stopReason = GENERATIVE_BLOCK_REASONS[block as GenerativeBlockReason] ?? 'content_filter';
  } else {
    const sawCall = parts.some((p) => p.type === 'tool_call');
    const empty = !parts.some((p) => p.type === 'text' || p.type === 'tool_call' || p.type === 'thinking' || p.type === 'image');
    stopReason = mapGenerativeFinishReason(candidate?.finishReason, sawCall, empty);
  }
  const reply: Reply = {
    id: r.responseId ?? `gen-${seed}`,
    model: r.modelVersion ?? '',
    parts,
    stopReason,
    usage: convertGenerativeUsage(r.usageMetadata),
  };
  if (r.createTime !== undefined) {
    const t = Date.parse(r.createTime);
    if (Number.isFinite(t)) reply.created = Math.floor(t / 1000);
  }
  return reply;
}
