/**
 * Tool-call ids. Ids are kept verbatim across styles; these helpers only fill a missing id (some chat-compatible
 * servers and the generative-language style send none) and make a foreign id acceptable to the messages style.
 *
 * Made-up ids are deterministic (a hash of what identifies the call), so a call and its result, decoded separately
 * or in a later request that replays the transcript, get the same id.
 */

/** FNV-1a over UTF-16 code units, two 32-bit lanes with different offsets, as 16 hex characters. */
function hash64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
    b = (b ^ (b >>> 15)) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/**
 * A deterministic id with the style's prefix (`call_` for chat, `toolu_` for messages), derived from `seeds`
 * (e.g. the response id and the call's position, or the turn index, name and arguments).
 */
export function makeToolCallId(prefix: 'call_' | 'toolu_' | 'fc_', ...seeds: (string | number)[]): string {
  return prefix + hash64(seeds.join('\u0000'));
}

const MESSAGES_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * The messages style accepts tool ids matching `^[a-zA-Z0-9_-]+$` only (reference §B). A conforming id is returned
 * unchanged; any other id is mapped deterministically (invalid characters replaced, plus a hash so that two
 * different ids never collide), so a call and its result still pair up.
 */
export function sanitizeMessagesToolId(id: string): string {
  if (MESSAGES_ID.test(id)) return id;
  if (id === '') return makeToolCallId('toolu_', 'empty');
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 40)}_${hash64(id).slice(0, 8)}`;
}
