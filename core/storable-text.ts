/**
 * Text that Postgres can store: a `text` or `jsonb` value refuses U+0000, and a lone UTF-16 surrogate cannot be
 * encoded as UTF-8 (Node would turn it into U+FFFD anyway, but a JSON `\ud800` escape is refused by jsonb).
 * One bad character must not block a writer that retries its batch (issue: a NUL in a gateway model name held every
 * later usage record back), so strings bound for storage pass through here at the edge.
 */

// NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const REPLACEMENT = '\uFFFD';

/** `s` with U+0000 and lone surrogates replaced by U+FFFD; the same string when there is nothing to replace. */
export function storableText(s: string): string {
  // Fast path: String#isWellFormed (no lone surrogates) is native; a NUL is found by indexOf.
  if (s.isWellFormed() && !s.includes('\u0000')) return s;
  return s.replace(UNSTORABLE, REPLACEMENT);
}
