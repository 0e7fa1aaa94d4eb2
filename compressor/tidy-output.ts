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

function stripTerminal(text: string): string {
  if (!text.includes('\x1b') && !text.includes('\r')) return text;
  const plain = text.replace(ANSI, '').replace(/\r\n/g, '\n');
  if (!plain.includes('\r')) return plain;
  return plain.split('\n').map((line) => {
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

function tidyWhitespace(text: string): string {
  return text.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n');
}

export function tidyOutput(text: string): TidyResult {
  const plain = stripTerminal(text);
  const lines = plain.split('\n');
  const collapsed = lines.length >= MIN_RUN ? collapseRuns(lines).join('\n') : plain;
  const minified = minifyJson(collapsed) ?? tidyWhitespace(collapsed);
  return { text: minified, ansi: text.length - collapsed.length, whitespace: collapsed.length - minified.length };
}
