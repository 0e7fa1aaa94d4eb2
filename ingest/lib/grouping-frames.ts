/**
 * The exception and frames that grouping, titles and culprits look at.
 *
 * - The raised exception is the LAST value of the list that is real: it has a type and its mechanism is not
 *   synthetic. A synthetic exception (captureMessage with a stack trace) makes the event a message event.
 * - Frames are ordered oldest → newest. The frames considered are those marked `in_app: true`; when none is,
 *   all frames. Frames whose file is `<anonymous>` or `[native code]`, or that name neither a location nor a
 *   function, are skipped. The 5 nearest the raise (the last five) are kept.
 * - A frame's location is its `module`, else its path: `filename`, else `abs_path`, without scheme, host,
 *   query or fragment, and without content hashes in file names (`main.3f2a1b9c.js` → `main.js`) so that a
 *   redeploy of the same code keeps its groups. The whole path is kept, not only the basename. Lowercased for
 *   grouping; the culprit keeps the case as sent (`myWebApp.Pages.DivideZeroModel`), as Sentry shows it.
 * - A frame's function loses engine decorations (`async `, `new `, ` [as alias]`); `<anonymous>` counts as none.
 * - Line and column numbers are never used.
 */
import type { ExceptionValue, StackFrame } from './event-types.ts';

export const GROUPING_FRAME_COUNT = 5;

const IGNORED_FILES = new Set(['<anonymous>', '[native code]', 'native', '<unknown>']);

/** The raised exception: the last value with a type and no synthetic mechanism. */
export function mainException(exceptions: readonly ExceptionValue[]): ExceptionValue | undefined {
  for (let i = exceptions.length - 1; i >= 0; i--) {
    const e = exceptions[i];
    if (isRealException(e)) return e;
  }
  return undefined;
}

export function isRealException(e: ExceptionValue): boolean {
  return typeof e.type === 'string' && e.type !== '' && e.mechanism?.synthetic !== true;
}

export interface GroupingFrame {
  location: string;
  function: string;
  /** The frame's own platform when it names one (mixed stacks: native frames under JavaScript…). */
  platform?: string;
}

/** The frames nearest the raise that grouping uses, oldest first, at most `count`. */
export function groupingFrames(exception: ExceptionValue | undefined, count = GROUPING_FRAME_COUNT, keepCase = false): GroupingFrame[] {
  // Each frame read once: whether a frame is usable does not depend on the case kept.
  const pool = framePool(exception);
  const out: GroupingFrame[] = [];
  for (let i = pool.length - 1; i >= 0 && out.length < count; i--) {
    const g = toGroupingFrame(pool[i], keepCase);
    if (g) out.push(g);
  }
  return out.reverse();
}

/** The frames as sent that groupingFrames reads, oldest first, at most `count`. */
export function usableFrames(exception: ExceptionValue | undefined, count = GROUPING_FRAME_COUNT): StackFrame[] {
  const pool = framePool(exception);
  const out: StackFrame[] = [];
  for (let i = pool.length - 1; i >= 0 && out.length < count; i--) {
    if (toGroupingFrame(pool[i])) out.push(pool[i]);
  }
  return out.reverse();
}

/** The in-app frames, or all of them when none is. */
function framePool(exception: ExceptionValue | undefined): StackFrame[] {
  const frames = exception?.stacktrace?.frames ?? [];
  const inApp = frames.filter((f) => f.in_app === true);
  return inApp.length > 0 ? inApp : frames;
}

export function toGroupingFrame(frame: StackFrame, keepCase = false): GroupingFrame | undefined {
  const file = frame.filename ?? frame.abs_path;
  if (file !== undefined && IGNORED_FILES.has(file.trim().toLowerCase())) return undefined;
  const location = frameLocation(frame, keepCase);
  const fn = frameFunction(frame.function);
  if (location === '' && fn === '') return undefined;
  const out: GroupingFrame = { location, function: fn };
  if (typeof frame.platform === 'string' && frame.platform !== '') out.platform = frame.platform.toLowerCase();
  return out;
}

export function frameLocation(frame: StackFrame, keepCase = false): string {
  const lower = (s: string) => (keepCase ? s : s.toLowerCase());
  if (frame.module !== undefined && frame.module.trim() !== '') return lower(frame.module.trim());
  const path = frame.filename ?? frame.abs_path;
  return path === undefined ? '' : lower(normalizePath(path, true));
}

/** `https://cdn.example.com/static/js/main.3f2a1b9c.js?v=2#x` → `/static/js/main.js`. */
export function normalizePath(path: string, keepCase = false): string {
  let p = path.trim();
  p = p.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, ''); // scheme and host (file:///, app://, webpack://…)
  p = p.replace(/[?#].*$/s, '');
  p = p.replace(/\\/g, '/');
  p = p.replace(/\/\.(?=\/)/g, '');
  p = p.replace(/[.-][0-9a-f]{8,}(?=\.[a-z0-9]+$)/i, '');
  return keepCase ? p : p.toLowerCase();
}

export function frameFunction(fn: string | undefined): string {
  if (fn === undefined) return '';
  let f = fn.trim();
  f = f.replace(/^(?:async|new)\s+/, '');
  f = f.replace(/\s+\[as [^\]]*\]$/, '');
  if (f === '<anonymous>' || f === '?') return '';
  return f;
}
