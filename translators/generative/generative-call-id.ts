// Function-call ids for the generative-language style. Gemini often sends calls without an id and pairs results
// by name and order; the other styles need an id on every call and result. When Gemini sends an id we keep it
// verbatim (newer models expect it back in `functionResponse.id`). Otherwise we make one up, deterministically, so
// that the same history always yields the same ids (upstream prompt caches key on them) and ids never repeat
// across turns (ids built from the function name alone collide: brainlid/langchain#620, TanStack/ai#199).
// Made-up ids carry a prefix so that the encoder knows not to send them to Gemini.

const PREFIX = 'gcall_';

/** A made-up id: `gcall_<seed>_<k>`, with the seed reduced to characters every style accepts (`[A-Za-z0-9_-]`). */
export function generativeCallId(seed: string, k: number): string {
  return `${PREFIX}${seed.replace(/[^A-Za-z0-9_-]/g, '')}_${k}`;
}

export function isMadeUpGenerativeCallId(id: string): boolean {
  return id.startsWith(PREFIX);
}

/** A short stable hash (FNV-1a, 32 bits, base 36) used as a seed when the response carries no `responseId`. */
export function stableHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}
