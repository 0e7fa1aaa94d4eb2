/**
 * How big a turn is, in characters, as the compressor counts it (a fixed, tokenizer-free measure, so that the
 * frontier of a conversation is the same on every node and every version of a tokenizer).
 */
import type { Part, Turn } from '../translators/model.ts';

/** An image counts as about 1 334 tokens (a 1000×1000 picture in the messages style's rule of thumb). */
const IMAGE_CHARS = 1334 * 4;

export function partChars(p: Part): number {
  switch (p.type) {
    case 'text':
    case 'refusal':
    case 'thinking':
      return p.text.length;
    case 'tool_call':
      return p.name.length + p.argumentsText.length;
    case 'tool_result': {
      let n = 0;
      for (const c of p.content) n += partChars(c);
      return n;
    }
    case 'image':
      return IMAGE_CHARS;
    case 'document':
    case 'audio':
      return p.source.kind === 'base64' ? p.source.data.length : p.source.kind === 'text' ? p.source.text.length : IMAGE_CHARS;
    case 'redacted_thinking':
      return p.data.length;
  }
}

export function turnChars(t: Turn): number {
  let n = 0;
  for (const p of t.parts) n += partChars(p);
  return n;
}
