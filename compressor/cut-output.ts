/**
 * The lossy step on a huge old tool output (issue 13 point 2): its head and its tail are kept, the middle is cut
 * with a marker that says how much went, and lines of the middle that name an error or a failure are kept after the
 * marker (a later turn often depends on exactly such a line: an error message, a failing test's name).
 */
import { CHARS_PER_TOKEN, type CompressOptions } from './compress-options.ts';

/** Words of a line worth keeping from a cut middle. */
const NOTABLE = /\b(error|errors|fail|failed|failure|failing|exception|panic|traceback|fatal|warning|assert\w*)\b|✗|✘/i;
const MAX_NOTABLE_LINES = 40;
const MAX_NOTABLE_CHARS = 300;

export function cutMarker(lines: number, chars: number, kept: number): string {
  const notable = kept > 0 ? `; the ${kept} lines of it naming errors or failures follow` : '';
  return `[svc: ${lines} lines (${chars} characters) cut from the middle of this output${notable}]`;
}

/** The output cut to its head and tail, or the same string when it is not past `hugeOutputTokens`. */
export function cutOutput(text: string, opts: CompressOptions): string {
  if (text.length <= opts.hugeOutputTokens * CHARS_PER_TOKEN) return text;
  const headChars = opts.keepHeadTokens * CHARS_PER_TOKEN;
  const tailChars = opts.keepTailTokens * CHARS_PER_TOKEN;
  const lines = text.split('\n');
  let head = 0;
  let headLen = 0;
  while (head < lines.length && headLen + lines[head].length + 1 <= headChars) headLen += lines[head++].length + 1;
  let tail = lines.length;
  let tailLen = 0;
  while (tail > head && tailLen + lines[tail - 1].length + 1 <= tailChars) tailLen += lines[--tail].length + 1;
  if (head === 0 && tail === lines.length) {
    // One huge line (minified JSON, a bundle): cut by characters.
    const cut = text.length - headChars - tailChars;
    return `${text.slice(0, headChars)}\n${cutMarker(1, cut, 0)}\n${text.slice(text.length - tailChars)}`;
  }
  const middle = lines.slice(head, tail);
  const notable = middle.filter((l) => NOTABLE.test(l)).slice(0, MAX_NOTABLE_LINES).map((l) => l.slice(0, MAX_NOTABLE_CHARS));
  const cutChars = middle.reduce((n, l) => n + l.length + 1, 0);
  const out = [...lines.slice(0, head), cutMarker(middle.length, cutChars, notable.length), ...notable, ...lines.slice(tail)].join('\n');
  return out.length < text.length ? out : text;
}
