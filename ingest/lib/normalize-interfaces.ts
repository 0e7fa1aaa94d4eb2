/**
 * Readers for the event's optional interfaces: tags, breadcrumbs, user, request, contexts, fingerprint.
 * Each takes the raw value and returns the clean one or undefined (dropped and recorded by the caller);
 * unknown keys inside an interface are kept as sent.
 * @see https://develop.sentry.dev/sdk/data-model/event-payloads/
 */
import { isIP } from 'node:net';
import type { Breadcrumb, EventRequest, EventUser, StringPairs } from './event-types.ts';
import { isObject, readIdentifier, readPairs, readStringMap, readText, readValues, unset, type DropFn } from './event-values.ts';
import { parseTimestamp } from './parse-timestamp.ts';

const MAX_BREADCRUMBS = 100;
const TAG_KEY_CHARS = 200;
const TAG_VALUE_CHARS = 200;

/** Tags: an object or a list of [key, value] pairs → an object of strings (values cut at 200 characters). */
export function readTags(raw: unknown, drop: DropFn): Record<string, string> | undefined {
  return readStringMap(raw, TAG_KEY_CHARS, TAG_VALUE_CHARS, drop, 'tags');
}

/** Breadcrumbs: a list or {values}; objects only; the newest 100 kept; timestamps normalised to RFC 3339 UTC. */
export function readBreadcrumbs(raw: unknown, drop: DropFn): Breadcrumb[] | undefined {
  const list = readValues(raw);
  if (list === undefined) return undefined;
  const out: Breadcrumb[] = [];
  const start = Math.max(0, list.length - MAX_BREADCRUMBS);
  for (let i = start; i < list.length; i++) {
    const b = list[i];
    if (!isObject(b)) {
      drop(`breadcrumbs[${i}]`);
      continue;
    }
    const crumb: Breadcrumb = { ...b };
    let removed = false;
    const ts = parseTimestamp(b.timestamp);
    if (ts) crumb.timestamp = ts.toISOString();
    else removed = unset(crumb, 'timestamp') || removed;
    for (const key of ['type', 'category', 'level'] as const) {
      const v = readIdentifier(b[key], 128);
      if (v === undefined) removed = unset(crumb, key) || removed;
      else crumb[key] = v;
    }
    const message = readText(b.message, 8192);
    if (message === undefined) removed = unset(crumb, 'message') || removed;
    else crumb.message = message;
    if (!isObject(b.data)) removed = unset(crumb, 'data') || removed;
    out.push(removed ? { ...crumb } : crumb);
  }
  return out;
}

export interface UserResult {
  user: EventUser | undefined;
  /** True when the SDK sent `ip_address: "{{auto}}"`. */
  autoIp: boolean;
}

/** User: id/username/email/name as strings; `ip_address` kept when it is an IP, dropped when `{{auto}}`. */
export function readUser(raw: unknown, drop: DropFn): UserResult | undefined {
  if (!isObject(raw)) return undefined;
  const user: EventUser = { ...raw };
  let autoIp = false;
  let removed = false;
  for (const key of ['id', 'username', 'email', 'name'] as const) {
    if (raw[key] === undefined || raw[key] === null) {
      removed = unset(user, key) || removed;
      continue;
    }
    const v = readIdentifier(raw[key], 256);
    if (v === undefined) {
      removed = unset(user, key) || removed;
      drop(`user.${key}`);
    } else user[key] = v;
  }
  const ip = raw.ip_address;
  if (ip === '{{auto}}') {
    autoIp = true;
    removed = unset(user, 'ip_address') || removed;
  } else if (ip !== undefined && ip !== null) {
    if (typeof ip === 'string' && isIP(ip.trim()) !== 0) user.ip_address = ip.trim();
    else {
      removed = unset(user, 'ip_address') || removed;
      drop('user.ip_address');
    }
  } else removed = unset(user, 'ip_address') || removed;
  if (Object.keys(user).length === 0) return { user: undefined, autoIp };
  return { user: removed ? { ...user } : user, autoIp };
}

/** Request: method uppercased; url, query_string, cookies, headers (→ pairs), data, env, fragment checked. */
export function readRequest(raw: unknown, drop: DropFn): EventRequest | undefined {
  if (!isObject(raw)) return undefined;
  const req: EventRequest = { ...raw };
  const method = readIdentifier(raw.method, 32);
  const removed = [
    assign(req, 'method', raw.method, method?.toUpperCase(), drop),
    assign(req, 'url', raw.url, readText(raw.url, 8192), drop),
    assign(req, 'fragment', raw.fragment, readText(raw.fragment, 1024), drop),
    assign(req, 'query_string', raw.query_string, readQueryLike(raw.query_string, drop, 'request.query_string'), drop),
    assign(req, 'cookies', raw.cookies, readQueryLike(raw.cookies, drop, 'request.cookies'), drop),
    assign(req, 'headers', raw.headers, readPairs(raw.headers, 8192, drop, 'request.headers'), drop),
    assign(req, 'env', raw.env, isObject(raw.env) ? raw.env : undefined, drop),
  ].includes(true);
  return removed ? { ...req } : req;
}

/** A query string or cookie jar: a string (a leading `?` removed), an object of strings, or pairs. */
function readQueryLike(raw: unknown, drop: DropFn, path: string): string | StringPairs | Record<string, string> | undefined {
  if (typeof raw === 'string') return raw.startsWith('?') ? raw.slice(1) : raw;
  if (Array.isArray(raw)) return readPairs(raw, 8192, drop, path);
  if (isObject(raw)) return readStringMap(raw, 256, 8192, drop, path);
  return undefined;
}

/** Contexts: an object of objects; each gets a `type` (its key) when it has none. */
export function readContexts(raw: unknown, drop: DropFn): Record<string, Record<string, unknown>> | undefined {
  if (!isObject(raw)) return undefined;
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!isObject(value)) {
      drop(`contexts.${name.slice(0, 40)}`);
      continue;
    }
    const ctx = { ...value };
    if (typeof ctx.type !== 'string' || ctx.type === '') ctx.type = name;
    Object.defineProperty(out, name, { value: ctx, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Fingerprint: a non-empty list of strings (numbers and booleans written out); anything else is dropped. */
export function readFingerprint(raw: unknown): string[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 64) return undefined;
  const out: string[] = [];
  for (const part of raw) {
    const s = typeof part === 'string' ? part : typeof part === 'number' || typeof part === 'boolean' ? String(part) : undefined;
    if (s === undefined || s.length > 512) return undefined;
    out.push(s);
  }
  return out;
}

/** Sets the clean value, or removes the key (recording a drop when a value was sent); true when a key was removed. */
function assign<K extends keyof EventRequest & string>(req: EventRequest, key: K, raw: unknown, clean: EventRequest[K] | undefined, drop: DropFn): boolean {
  if (clean !== undefined) {
    req[key] = clean;
    return false;
  }
  if (raw !== undefined && raw !== null) drop(`request.${key}`);
  return unset(req, key);
}
