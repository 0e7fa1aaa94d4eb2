/**
 * The request a summary model gets for a span of old turns (docs/compression.md "Summaries"): a chat-style body
 * with instructions, the summaries of the spans before it as context, and the turns written out as a transcript. Long tool outputs are cut to their head and tail
 * (the summary keeps what later turns depend on: paths, errors, values, decisions, not whole files).
 */
import type { Part, Turn } from '../../translators/model.ts';

const INSTRUCTIONS = [
  'You summarise a span of turns of a conversation between a user and a coding assistant that uses tools.',
  'The summary replaces those turns for the assistant, which continues the conversation from it; the summaries of',
  'earlier spans, if any, stay in the conversation before it, so do not repeat them.',
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

/** What a summary is made of: the turns of its span, where they start, and the summaries of the spans before it. */
export interface SummaryInput {
  turns: readonly Turn[];
  /** The index of the span's first turn in the conversation. */
  start: number;
  /** The texts of the earlier summaries, oldest first (context: the span's own turns may not name the task). */
  earlier: readonly string[];
}

export function summaryRequestBody(model: string, input: SummaryInput): Record<string, unknown> {
  const { turns, start, earlier } = input;
  const context = earlier.length === 0 ? '' : `The conversation so far, as earlier summaries give it:\n\n${earlier.join('\n\n')}\n\n`;
  const which = start === 0 ? `the first ${turns.length} turns` : `turns ${start + 1} to ${start + turns.length}`;
  return {
    model,
    max_tokens: SUMMARY_MAX_TOKENS,
    messages: [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: `${context}Summarise ${which} of the conversation:\n\n${transcriptOf(turns)}` },
    ],
  };
}
