/**
 * An event's title and culprit, as issue lists show them.
 *
 * - Title: `Type: first line of the value` for the raised exception (the type alone when there is no value);
 *   for a message event (no exception, or only a synthetic one) the first line of the message; else
 *   `<unlabeled event>`. At most 200 characters.
 * - Culprit (as Sentry): the transaction when the event names one; else the in-app frame nearest the raise as
 *   `location in function` (see grouping-frames.ts for location and function, here with their case as sent),
 *   written `function(location)` for JavaScript and Node (a browser script's location being the module name
 *   Sentry makes up from its URL, see scriptModule) and `function` alone for native and Cocoa frames as
 *   Sentry writes them; else the request URL; else ''. A culprit the SDK sent is kept instead
 *   (normalize-event.ts).
 */
import type { GroupingInput } from './event-types.ts';
import { mainException, toGroupingFrame, usableFrames } from './grouping-frames.ts';

const MAX_TITLE = 200;

export function titleOf(event: Pick<GroupingInput, 'exceptions' | 'message'>): string {
  const main = mainException(event.exceptions);
  if (main?.type) {
    const value = firstLine(main.value ?? '');
    return clip(value === '' ? main.type : `${main.type}: ${value}`);
  }
  const message = firstLine(event.message ?? syntheticValue(event) ?? '');
  return message === '' ? '<unlabeled event>' : clip(message);
}

const JS_PLATFORMS = new Set(['javascript', 'node']);
const NATIVE_PLATFORMS = new Set(['native', 'cocoa', 'objc']);

export function culpritOf(event: Pick<GroupingInput, 'exceptions' | 'transaction'> & { url?: string; platform?: string }): string {
  if (event.transaction) return clip(event.transaction);
  // The raised exception's frames; for a message event, the capture site of its synthetic stack trace.
  const source = mainException(event.exceptions) ?? [...event.exceptions].reverse().find((e) => (e.stacktrace?.frames.length ?? 0) > 0);
  const [raw] = usableFrames(source, 1);
  const frame = raw === undefined ? undefined : toGroupingFrame(raw, true);
  if (!frame) return clip(event.url ?? '');
  const platform = frame.platform ?? event.platform;
  if (platform !== undefined && NATIVE_PLATFORMS.has(platform)) return clip(frame.function || '?');
  if (frame.location === '') return clip(frame.function);
  if (platform !== undefined && JS_PLATFORMS.has(platform)) {
    const url = raw?.module === undefined ? (raw?.abs_path ?? raw?.filename) : undefined;
    const location = url !== undefined && /^https?:\/\//i.test(url) ? scriptModule(url) : frame.location;
    return clip(`${frame.function || '?'}(${location})`);
  }
  if (frame.function === '') return clip(frame.location);
  return clip(`${frame.location} in ${frame.function}`);
}

/**
 * The module name Sentry makes up for a browser script it has no module for: the URL's path without extension
 * (nor `.min`), without leading folders that say nothing (`js`, `javascript(s)`, `script(s)`, `build`, `static`,
 * `node_modules`, `bower_components`, folders starting with `_`, `.` or `~`, versions, short or full hashes), and
 * without a trailing content hash: `https://shop.example.com/static/js/main.3f2a1b9c.js` → `main`.
 */
export function scriptModule(url: string): string {
  let path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/[?#].*$/s, '');
  path = path.replace(/\.[^./]*$/, '').replace(/\.min$/i, '');
  const parts = path.split('/');
  const sha = parts.findIndex((p) => /^(?:[0-9a-f]{32}|[0-9a-f]{40})$/i.test(p));
  if (sha !== -1) return parts.slice(sha + 1).join('/');
  const noise = /^(?:(?:java)?scripts?|js|build|static|node_modules|bower_components|[_.~].*|v?(?:\d+\.)*\d+|[0-9a-f]{7,8}|[0-9a-f]{32}|[0-9a-f]{40})$/i;
  let i = 0;
  while (i < parts.length - 1 && (parts[i] === '' || noise.test(parts[i]))) i++;
  const module = parts.slice(i).join('/').replace(/[-.][0-9a-f]{7,}$/i, '');
  return module === '' ? '<unknown module>' : module;
}

function syntheticValue(event: Pick<GroupingInput, 'exceptions'>): string | undefined {
  for (let i = event.exceptions.length - 1; i >= 0; i--) {
    const v = event.exceptions[i].value;
    if (v) return v;
  }
  return undefined;
}

function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  return (nl === -1 ? s : s.slice(0, nl)).trim();
}

function clip(s: string): string {
  return s.length > MAX_TITLE ? `${s.slice(0, MAX_TITLE - 1)}…` : s;
}
