/**
 * The request a summary model gets for a span of oldest turns (docs/compression.md "Summaries"): a chat-style body
 * with instructions and the turns written out as a transcript. Long tool outputs are cut to their head and tail
 * (the summary keeps what later turns depend on: paths, errors, values, decisions, not whole files).
 */
import type { Part, Turn } from '../../translators/model.ts';

const INSTRUCTIONS = [
  'You summarise the beginning of a conversation between a user and a coding assistant that uses tools.',
  'The summary replaces those turns for the assistant, which continues the conversation from it.',
  'Keep the task as the user stated it, every decision and its reason, file paths, commands, error messages and values',
  'quoted exactly, what was tried and its outcome, and what remains to do. Write plain text, no preamble.',
].join(' ');

/** Characters of one tool output kept in the transcript, half from its start and half from its end. */
const OUTPUT_CHARS = 4_000;
/** The transcript is cut to this many characters (its start and its end). */
const TRANSCRIPT_CHARS = 400_000;
export const SUMMARY_MAX_TOKENS = 2_048;

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - max} characters omitted …]\n${text.slice(-half)}`;
}

function partText(p: Part): string {
  switch (p.type) {
    case 'text':
    case 'refusal':
      return p.text;
    case 'tool_call':
      return `[tool call ${p.name} ${p.argumentsText}]`;
    case 'tool_result':
      return `[tool result${p.isError ? ' (error)' : ''}]\n${clip(p.content.map(partText).join('\n'), OUTPUT_CHARS)}`;
    case 'image':
    case 'document':
    case 'audio':
      return `[${p.type}]`;
    case 'thinking':
    case 'redacted_thinking':
      return '';
  }
}

export function transcriptOf(turns: readonly Turn[]): string {
  const lines = turns.map((t) => `## ${t.role}\n${t.parts.map(partText).filter((s) => s !== '').join('\n')}`);
  return clip(lines.join('\n\n'), TRANSCRIPT_CHARS);
}

export function summaryRequestBody(model: string, turns: readonly Turn[]): Record<string, unknown> {
  return {
    model,
    max_tokens: SUMMARY_MAX_TOKENS,
    messages: [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: `Summarise these ${turns.length} turns:\n\n${transcriptOf(turns)}` },
    ],
  };
}
