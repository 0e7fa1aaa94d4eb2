/**
 * Where the upstream ignores the reasoning of earlier turns, so that the compressor may drop it from old turns
 * (issue 13 point 2). Only entries with a source are listed; everything else keeps its reasoning.
 *
 * - messages style, Claude 3.7 Sonnet and the Claude 4 / 4.1 models: "thinking blocks from previous turns are
 *   stripped" from the context by the API itself (Anthropic, Building with extended thinking, "Thinking blocks from
 *   previous turns": https://docs.claude.com/en/docs/build-with-claude/extended-thinking, and Context windows:
 *   https://docs.claude.com/en/docs/build-with-claude/context-windows). Claude Opus 4.5 and later keep them by
 *   default, so they are not listed.
 * - chat-completions style: the request has no place for earlier reasoning; the encoder never sends it.
 * - responses and generative-language styles: not listed; their documentation asks to send reasoning items and
 *   thought signatures back, so the compressor keeps them.
 */
import type { StyleName } from '../../translators/model.ts';
import { matchesModel } from '../../core/ai/model-pattern.ts';

const IGNORES_OLD_REASONING: Partial<Record<StyleName, readonly string[]>> = {
  messages: ['claude-3-7-sonnet*', 'claude-sonnet-4-2025*', 'claude-sonnet-4-0', 'claude-opus-4-2025*', 'claude-opus-4-0', 'claude-opus-4-1*'],
};

export function upstreamIgnoresOldReasoning(style: StyleName, model: string): boolean {
  return IGNORES_OLD_REASONING[style]?.some((p) => matchesModel(p, model)) ?? false;
}
