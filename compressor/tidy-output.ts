/**
 * The lossless steps on a tool output (issue 13 point 2), in order, each measured:
 * - `ansi`: terminal colour and cursor codes removed, a line redrawn with carriage returns (progress bars) kept as
 *   its last state, and runs of identical consecutive lines collapsed to the line and a count;
 * - `whitespace`: JSON minified (only when it parses and has no number long enough to lose digits) and otherwise
 *   trailing spaces cut and runs of blank lines folded to one; indentation is kept (it is meaningful in code).
 */
export interface TidyResult {
  text: string;
  /** Characters removed by each step. */
  ansi: number;
  whitespace: number;
}

// CSI sequences (colours, cursor moves) and OSC sequences (titles, hyperlinks) ended by BEL or ST.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
/** Runs shorter than this stay as they are (a marker would not be shorter). */
const MIN_RUN = 3;
/** A number with this many digits loses precision in a JSON round trip. */
const LONG_NUMBER = /\d{16,}/;

export function repeatMarker(times: number): string {
  return `[svc: the line above repeats ${times} more times]`;
}

function collapseRuns(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i + 1;
    while (j < lines.length && lines[j] === lines[i]) j++;
    const run = j - i;
    if (run >= MIN_RUN && lines[i].trim() !== '') out.push(lines[i], repeatMarker(run - 1));
    else for (let k = i; k < j; k++) out.push(lines[k]);
    i = j;
  }
  return out;
}

/** Whether `text` has a run of MIN_RUN identical lines that are not blank, found without splitting it. */
function hasRun(text: string): boolean {
  let start = 0;
  let prevStart = -1;
  let prevEnd = -1;
  let run = 1;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (prevStart >= 0 && sameSlice(text, prevStart, prevEnd, start, end)) {
      if (++run >= MIN_RUN && text.slice(start, end).trim() !== '') return true;
    } else run = 1;
    prevStart = start;
    prevEnd = end;
    start = end + 1;
  }
  return false;
}

function sameSlice(text: string, a: number, aEnd: number, b: number, bEnd: number): boolean {
  if (aEnd - a !== bEnd - b) return false;
  for (let i = 0; i < aEnd - a; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

function stripTerminal(text: string): string {
  if (!text.includes('\x1b') && !text.includes('\r')) return text;
  const plain = text.replace(ANSI, '').replace(/\r\n/g, '\n');
  if (!plain.includes('\r')) return plain;
  return plain.split('\n').map((line) => {
    if (!line.includes('\r')) return line;
    const segments = line.split('\r').filter((s) => s !== '');
    return segments.length > 0 ? segments[segments.length - 1] : '';
  }).join('\n');
}

function minifyJson(text: string): string | undefined {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('[')) || LONG_NUMBER.test(t)) return undefined;
  try {
    return JSON.stringify(JSON.parse(t));
  } catch {
    return undefined;
  }
}

/** A space or tab that ends a line (before any line terminator a multiline `$` knows, or at the end). */
const TRAILING_BLANK = /[ \t](?:[\n\r\u2028\u2029]|$)/;

/**
 * Spaces and tabs cut from the end of every line. Not `/[ \t]+$/gm`: that pattern retries every position of every
 * run of spaces (the indentation of each line of code) and was the compressor's largest cost. Lines end at `\n`
 * (found natively) and, in the rare text that holds them, at the other terminators a multiline `$` knows.
 */
function cutTrailingBlanks(text: string): string {
  if (!TRAILING_BLANK.test(text)) return text;
  const other = text.includes('\r') || text.includes('\u2028') || text.includes('\u2029');
  const parts: string[] = [];
  let from = 0;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let e = other ? nextTerminator(text, lineStart) : text.indexOf('\n', lineStart);
    if (e < 0) e = text.length;
    let end = e;
    while (end > lineStart && isBlank(text.charCodeAt(end - 1))) end--;
    if (end < e) {
      parts.push(text.slice(from, end));
      from = e;
    }
    lineStart = e + 1;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

const isBlank = (c: number) => c === 32 || c === 9;

function nextTerminator(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return i;
  }
  return -1;
}

/** Trailing blanks cut and runs of blank lines folded to one (exported for its test against the patterns it replaces). */
export function tidyWhitespace(text: string): string {
  const cut = cutTrailingBlanks(text);
  return cut.includes('\n\n\n') ? cut.replace(/\n{3,}/g, '\n\n') : cut;
}

// Each step looks before it copies: the compressor tidies every old output again on every request, and most
// outputs need no step at all.
export function tidyOutput(text: string): TidyResult {
  const plain = stripTerminal(text);
  const collapsed = hasRun(plain) ? collapseRuns(plain.split('\n')).join('\n') : plain;
  const minified = minifyJson(collapsed) ?? tidyWhitespace(collapsed);
  return { text: minified, ansi: text.length - collapsed.length, whitespace: collapsed.length - minified.length };
}
