/**
 * Small readers shared by the event normalisers: each returns a clean value or undefined (the caller drops
 * the field and records it). No reader throws.
 */

export type Json = Record<string, unknown>;

/** Record a field that was present but unreadable and therefore dropped. */
export type DropFn = (path: string) => void;

/**
 * Deletes `key` from an object a reader is building; returns whether it was there. V8 turns an object that lost a
 * property into a dictionary, and JSON.stringify of a document holding a single one takes its slow path for the whole
 * document (the bench's 5.4 KB event: 28 µs instead of 16 µs, for the user whose `{{auto}}` address was removed), so
 * a reader that removed something returns `{ ...out }`, a plain object again.
 */
export function unset<T extends object>(obj: T, key: keyof T & string): boolean {
  if (!Object.hasOwn(obj, key)) return false;
  delete obj[key];
  return true;
}

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An identifier-like string (release, environment, tag key…): trimmed, non-empty, at most `max` chars, no
 * control characters. Numbers are accepted and turned into strings (SDKs send numeric ids and releases). */
export function readIdentifier(v: unknown, max: number): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  if (s === '' || s.length > max || /[\u0000-\u001f\u007f]/.test(s)) return undefined;
  return s;
}

/** Free text: strings kept (cut at `max` with an ellipsis); numbers and booleans written out. */
export function readText(v: unknown, max: number): string | undefined {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v !== 'string') return undefined;
  return v.length > max ? `${v.slice(0, max - 1)}…` : v;
}

export function readBoolean(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

/** A non-negative integer, from a number or a numeric string. */
export function readUint(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d{1,15}$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** A list given either bare or as `{values: [...]}` (exception, breadcrumbs, threads). */
export function readValues(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (isObject(v) && Array.isArray(v.values)) return v.values;
  return undefined;
}

/** A string map given as an object or a list of [key, value] pairs; values become strings. */
export function readStringMap(v: unknown, maxKey: number, maxValue: number, drop: DropFn, path: string): Record<string, string> | undefined {
  const entries: Array<[unknown, unknown]> = [];
  if (isObject(v)) entries.push(...Object.entries(v));
  else if (Array.isArray(v)) {
    for (const [i, pair] of v.entries()) {
      if (Array.isArray(pair) && pair.length === 2) entries.push([pair[0], pair[1]]);
      else drop(`${path}[${i}]`);
    }
  } else return undefined;
  const out: Record<string, string> = {};
  for (const [k, value] of entries) {
    const key = readIdentifier(k, maxKey);
    const text = value === null || value === undefined ? undefined : readText(value, maxValue);
    if (key === undefined || text === undefined) {
      drop(`${path}.${String(k).slice(0, 40)}`);
      continue;
    }
    // Object.defineProperty keeps a "__proto__" tag a plain own property.
    Object.defineProperty(out, key, { value: text, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A list of [name, value] string pairs, from an object or a list of pairs (request headers). */
export function readPairs(v: unknown, maxValue: number, drop: DropFn, path: string): Array<[string, string]> | undefined {
  const source: Array<[unknown, unknown]> = [];
  if (isObject(v)) {
    for (const [k, value] of Object.entries(v)) {
      if (Array.isArray(value)) for (const item of value) source.push([k, item]);
      else source.push([k, value]);
    }
  } else if (Array.isArray(v)) {
    for (const pair of v) source.push(Array.isArray(pair) && pair.length === 2 ? [pair[0], pair[1]] : [undefined, undefined]);
  } else return undefined;
  const out: Array<[string, string]> = [];
  for (const [k, value] of source) {
    const name = readIdentifier(k, 256);
    const text = readText(value, maxValue);
    if (name === undefined || text === undefined) drop(`${path}.${String(k).slice(0, 40)}`);
    else out.push([name, text]);
  }
  return out;
}
