/**
 * The mode and the thresholds of one call for one upstream model (issue 13 point 1; docs/compression.md has the
 * table): the lowest of the instance mode, the most specific model rule, the team's and the key's mode, lowered
 * further by the `X-Svc-Compress` request header (which can never raise it).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { StyleName } from '../../translators/model.ts';
import { DEFAULT_COMPRESS_OPTIONS, type CompressOptions } from '../../compressor/compress-options.ts';
import { svcError } from '../../core/errors.ts';
import {
  COMPRESSION_MODES, isCompressionMode, lowestMode, ruleFor, type CompressionMode, type CompressionSettings,
} from '../../core/ai/compression-settings.ts';
import type { GatewayKey } from '../keys/key-store.ts';
import { upstreamIgnoresOldReasoning } from './reasoning-table.ts';

export const COMPRESS_HEADER = 'x-svc-compress';

/** The header's mode, undefined without one; 400 in the caller's style for a value it does not know. */
export function headerMode(headers: IncomingHttpHeaders): CompressionMode | undefined {
  const raw = headers[COMPRESS_HEADER];
  if (raw === undefined) return undefined;
  const v = (Array.isArray(raw) ? raw.join(',') : raw).trim().toLowerCase();
  if (isCompressionMode(v)) return v;
  throw svcError('invalid_compress_header', `The X-Svc-Compress header must be one of ${COMPRESSION_MODES.join(', ')} (got "${v.slice(0, 40)}").`, { header: 'X-Svc-Compress' });
}

export interface CompressionPlan {
  mode: CompressionMode;
  options: CompressOptions;
}

export function planCompression(
  settings: CompressionSettings, key: GatewayKey, header: CompressionMode | undefined, model: string, upstreamStyle: StyleName,
): CompressionPlan {
  const rule = ruleFor(settings, model);
  const mode = lowestMode(settings.mode, rule?.mode, key.teamCompression, key.compression, header);
  const options: CompressOptions = {
    ...DEFAULT_COMPRESS_OPTIONS,
    keepLastTurns: rule?.keep_last_turns ?? settings.keepLastTurns,
    minTokens: rule?.min_tokens ?? DEFAULT_COMPRESS_OPTIONS.minTokens,
    lossyAtTokens: rule?.lossy_at_tokens ?? DEFAULT_COMPRESS_OPTIONS.lossyAtTokens,
    hugeOutputTokens: rule?.huge_output_tokens ?? DEFAULT_COMPRESS_OPTIONS.hugeOutputTokens,
    dropOldReasoning: upstreamIgnoresOldReasoning(upstreamStyle, model),
  };
  return { mode, options };
}
