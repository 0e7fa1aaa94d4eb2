/**
 * Local token counting with tiktoken (`o200k_base`), used for `count_tokens` across styles and for estimates
 * (in-flight budget reservations, a stream cut short). Counts are estimates: every provider tokenises
 * differently, so results are marked `source: 'estimated'` wherever they end up in a Usage.
 *
 * The encoder is created once, on first use, and kept for the life of the process. tiktoken itself is loaded on
 * first use too (about 16 MB of WebAssembly, 60 MB more with the o200k ranks), so a process that never estimates
 * never pays for it.
 */
import { createRequire } from 'node:module';
import type { Tiktoken } from 'tiktoken';
import type { Conversation, MediaSource, Part } from './model.ts';

const load = createRequire(import.meta.url);

let encoder: Tiktoken | undefined;

function tokenizer(): Tiktoken {
  encoder ??= (load('tiktoken') as typeof import('tiktoken')).get_encoding('o200k_base');
  return encoder;
}

/** Tokens of a plain text (special-token strings count as ordinary text). */
export function estimateTextTokens(text: string): number {
  return text === '' ? 0 : tokenizer().encode_ordinary(text).length;
}

/** Per-message framing overhead, as in OpenAI's counting recipe (role and separators). */
const PER_TURN = 3;
/** Priming of the reply. */
const PER_REQUEST = 3;
/** An image of unknown size: about a 1000×1000 picture (messages style: width × height / 750 ≈ 1 334). */
const IMAGE_TOKENS = 1334;
/** Audio: about 25 tokens per second; 16 kB/s of base64 for typical speech encodings. */
const AUDIO_TOKENS_PER_KB = 1.6;
/** A PDF page is about 1 500 to 3 000 tokens; estimated from size at about 1 token per 12 bytes, at least 1 500. */
const DOCUMENT_BYTES_PER_TOKEN = 12;

function sourceBytes(s: MediaSource): number {
  if (s.kind === 'base64') return Math.floor((s.data.length * 3) / 4);
  return 0;
}

function partTokens(p: Part): number {
  switch (p.type) {
    case 'text':
    case 'refusal':
    case 'thinking':
      return estimateTextTokens(p.text);
    case 'redacted_thinking':
      return Math.ceil(p.data.length / 4);
    case 'image':
      return IMAGE_TOKENS;
    case 'audio':
      return Math.ceil((sourceBytes(p.source) / 1024) * AUDIO_TOKENS_PER_KB);
    case 'document':
      if (p.source.kind === 'text') return estimateTextTokens(p.source.text) + estimateTextTokens(p.title ?? '');
      return Math.max(1500, Math.ceil(sourceBytes(p.source) / DOCUMENT_BYTES_PER_TOKEN));
    case 'tool_call':
      return estimateTextTokens(p.name) + estimateTextTokens(p.argumentsText || JSON.stringify(p.arguments)) + PER_TURN;
    case 'tool_result':
      return p.content.reduce((n, c) => n + partTokens(c), PER_TURN);
  }
}

/** Estimated prompt tokens of a request: instructions, turns, and tool definitions. */
export function countConversationTokens(conv: Conversation): number {
  let total = PER_REQUEST;
  if (conv.system.length > 0) total += PER_TURN + conv.system.reduce((n, p) => n + estimateTextTokens(p.text), 0);
  for (const turn of conv.turns) total += PER_TURN + turn.parts.reduce((n, p) => n + partTokens(p), 0);
  for (const tool of conv.tools) {
    total += estimateTextTokens(tool.name) + estimateTextTokens(tool.description ?? '') + estimateTextTokens(JSON.stringify(tool.parameters)) + PER_TURN;
  }
  return total;
}
