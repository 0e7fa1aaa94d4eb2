/**
 * The event message: `message` as a string, or `message` / `logentry` as `{message, params, formatted}`
 * where `message` is the template. `logentry` wins over `message` when both are readable.
 *
 * The formatted text is `formatted` when sent, else the template with its params substituted (printf-style
 * `%s %d %i %f %r %o %O %j`, `%%`, named `%(name)s` or `{name}` with an object, or `{0}`-style positions), else the
 * template itself.
 * @see https://develop.sentry.dev/sdk/data-model/event-payloads/message/
 */
import { isObject, readText } from './event-values.ts';

const MAX_CHARS = 8192;

export interface EventMessage {
  /** The formatted message. */
  formatted: string;
  /** The template when the message had params (or came as a logentry), else undefined. */
  template?: string;
  params?: unknown[] | Record<string, unknown>;
}

export function readMessage(logentry: unknown, message: unknown): EventMessage | undefined {
  return readEntry(logentry) ?? readEntry(message);
}

function readEntry(raw: unknown): EventMessage | undefined {
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : { formatted: clip(raw) };
  if (!isObject(raw)) return undefined;
  const template = readText(raw.message, MAX_CHARS);
  const formatted = readText(raw.formatted, MAX_CHARS);
  const params = Array.isArray(raw.params) || isObject(raw.params) ? raw.params : undefined;
  if (template === undefined && formatted === undefined) return undefined;
  const out: EventMessage = { formatted: formatted ?? (template !== undefined && params ? formatParams(template, params) : (template ?? '')) };
  if (template !== undefined) out.template = template;
  if (params) out.params = params;
  if (out.formatted.trim() === '') return undefined;
  out.formatted = clip(out.formatted);
  return out;
}

export function formatParams(template: string, params: unknown[] | Record<string, unknown>): string {
  if (!Array.isArray(params)) {
    // Named: Python's `%(name)s` and `str.format`'s `{name}` (Django, structlog); an unknown name stays as written.
    const named = (m: string, name: string) => (Object.hasOwn(params, name) ? show(params[name]) : m);
    return template.replace(/%\(([^)]{1,64})\)[sdifr]|\{(\w{1,64})\}/g, (m, a?: string, b?: string) => named(m, a ?? b ?? ''));
  }
  let i = 0;
  const printf = template.replace(/%%|%[sdifroOj]/g, (m) => {
    if (m === '%%') return '%';
    return i < params.length ? show(params[i++]) : m;
  });
  if (i > 0) return printf;
  return template.replace(/\{(\d{1,3})\}/g, (m, n: string) => (Number(n) < params.length ? show(params[Number(n)]) : m));
}

function show(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return 'undefined';
  try {
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  } catch {
    return String(v);
  }
}

function clip(s: string): string {
  return s.length > MAX_CHARS ? `${s.slice(0, MAX_CHARS - 1)}…` : s;
}
