/**
 * Scrub secrets out of an event before it is normalised and stored. Pure: returns a scrubbed copy (or, for an event
 * nobody else holds, writes the same result into it: scrubEventInPlace).
 *
 * 1. Keys: any value under a key that contains (case-insensitive, substring) one of DEFAULT_SENSITIVE_KEYS or
 *    the project's extra keys becomes `[Filtered]`, at any depth, in objects and in lists of [key, value]
 *    pairs (request headers, query strings and cookies sent as pairs, tags). Booleans and null are kept (they
 *    say that something was set, not what).
 * 2. Text: in every string, anywhere:
 *    - `key=value` where the key is sensitive, in query strings, URLs (request.url, breadcrumb URLs), cookie
 *      strings and free text: `?token=abc&page=2` → `?token=[Filtered]&page=2`;
 *    - `"key": "value"` where the key is sensitive (JSON quoted inside a string);
 *    - `key: value` unquoted, in free text, where the key names a credential (contains password, passwd, secret,
 *      token, api_key/apikey/api-key, private_key, credential, or one of the project's keys): after a password
 *      key any value goes; after the others only a value shaped like a credential (8+ characters with a digit,
 *      a symbol or mixed case), so `token: expired` stays;
 *    - URL passwords: `https://user:pw@host` → `https://user:[Filtered]@host`;
 *    - credentials after an auth scheme: `Bearer …`, `Basic …`, `Token …` (when the credential looks like one:
 *      it has a digit, a symbol or mixed case, so "Basic authentication" stays);
 *    - well-known secret shapes: `sk-…` keys (16+ characters after the prefix, `sk-ant-…`, `sk-svc-…` and
 *      `sk-proj-…` included), JWTs, GitHub `ghp_…`-style and `github_pat_…` tokens, Slack `xox?-…` tokens, AWS
 *      access key ids;
 *    - payment card numbers: 13 to 19 digits (spaces or dashes allowed) with a card-network prefix that pass
 *      the Luhn check; numbers stored as JSON numbers are checked too. An id that happens to look like a
 *      card is masked as well: the cost of a false positive is a hidden id, of a false negative a leak.
 * 3. Containers nested deeper than 100 levels are replaced by `[Truncated]` (no stack overflow on hostile input).
 *
 * Every pattern starts only where its first token can start (a separator, a lookbehind) so that scrubbing stays
 * linear in the size of the event, even for a megabyte of hostile text.
 *
 * The matchers are compiled once per set of extra keys (createScrubber, cached by scrubEvent).
 */

export const FILTERED = '[Filtered]';
export const TRUNCATED = '[Truncated]';

export const DEFAULT_SENSITIVE_KEYS: readonly string[] = [
  'password', 'passwd', 'secret', 'token', 'api_key', 'apikey', 'api-key', 'auth', 'credentials', 'cookie',
  'session', 'sessid', 'csrf', 'xsrf', 'credit', 'cvv', 'private_key', 'privatekey', 'private-key', 'dsn',
];

const MAX_DEPTH = 100;

export interface Scrubber {
  /** A scrubbed deep copy of any JSON value. */
  scrub(value: unknown): unknown;
  /**
   * The same result, written into the value itself (its objects and arrays are reused): for a value nobody else
   * holds, such as a payload just parsed, it saves copying every container of the event.
   */
  scrubInPlace(value: unknown): unknown;
  isSensitiveKey(key: string): boolean;
  scrubText(text: string): string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*):([^\s@/?#]+)@/gi;
const AUTH_SCHEME = /\b(Bearer|Basic|Token|Digest)(\s+)([A-Za-z0-9._~+/=-]{8,})/g;
const SECRET_SHAPES = [
  /\bsk-(?:[a-z]+-)?[A-Za-z0-9_-]{16,}/g,
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
];
/** A superset of AUTH_SCHEME and SECRET_SHAPES: their literal starts, without word boundaries. */
const SECRET_HINT = /(?:Bearer|Basic|Token|Digest)\s|sk-|eyJ|gh[pousr]_|github_pat_|xox[abposr]-|AKIA|ASIA/;
/** Keys whose unquoted `key: value` in free text is a credential (the project's own keys are added). */
const CREDENTIAL_WORDS: readonly string[] = ['password', 'passwd', 'secret', 'token', 'api_key', 'apikey', 'api-key', 'private_key', 'privatekey', 'private-key', 'credential'];
const PASSWORD_KEY = /pass(?:wd|word)/i;
/** Results of scrubText kept per scrubber: strings up to this length, this many at most (then forgotten). */
const MEMO_MAX_CHARS = 128;
const MEMO_ENTRIES = 4096;
const CARD = /(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])/g;
const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|2))/;

export function createScrubber(extraKeys: readonly string[] = []): Scrubber {
  const words = [...DEFAULT_SENSITIVE_KEYS, ...extraKeys.map((k) => k.trim().toLowerCase()).filter((k) => k !== '')];
  const sensitive = new RegExp(words.map(escape).join('|'), 'i');
  // Events repeat their keys: a key's answer is remembered (short keys only, as scrubText's results below).
  const keyMemo = new Map<string, boolean>();
  const isSensitiveKey = (key: string): boolean => {
    if (key.length > MEMO_MAX_CHARS) return sensitive.test(key);
    let hit = keyMemo.get(key);
    if (hit === undefined) {
      hit = sensitive.test(key);
      if (keyMemo.size >= MEMO_ENTRIES) keyMemo.clear();
      keyMemo.set(key, hit);
    }
    return hit;
  };
  // key=value (query strings, URLs, cookie strings, config text); the value may be quoted.
  const keyValue = /(^|[?&;,\s({[])([^=&;?#\s"'<>(){}[\],:]{1,64})(\s*=\s*)("[^"\n]*"|'[^'\n]*'|[^&;#\s"'<>,)]*)/g;
  // "key": "value" or key: 'value' (JSON or code inside a string).
  const quotedPair = /(?<![A-Za-z0-9_.-])(["']?)([A-Za-z0-9_.-]{1,64})\1(\s*:\s*)("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/g;
  // password: value (free text, log lines): a key holding a credential word, a colon, one unquoted word.
  const credentialWords = [...CREDENTIAL_WORDS, ...words.slice(DEFAULT_SENSITIVE_KEYS.length)].map(escape).join('|');
  const barePair = new RegExp(`(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]{0,32}(?:${credentialWords})[A-Za-z0-9_.-]{0,32})([ \\t]*:[ \\t]*)([^\\s"'\`,;(){}[\\]]+)`, 'gi');

  // Events repeat their short strings (file names, functions, breadcrumb categories): remember those results.
  const memo = new Map<string, string>();
  const scrubText = (text: string): string => {
    if (text.length < 6) return text;
    if (text.length > MEMO_MAX_CHARS) return scrubTextOnce(text);
    const hit = memo.get(text);
    if (hit !== undefined) return hit;
    const out = scrubTextOnce(text);
    if (memo.size >= MEMO_ENTRIES) memo.clear();
    memo.set(text, out);
    return out;
  };

  const scrubTextOnce = (text: string): string => {
    let s = text;
    if (s.includes('=')) {
      s = s.replace(keyValue, (m, sep: string, k: string, eq: string, v: string) => (v !== '' && isSensitiveKey(k) ? `${sep}${k}${eq}${FILTERED}` : m));
    }
    if (s.includes(':')) {
      s = s.replace(quotedPair, (m, q: string, k: string, colon: string, v: string) => (isSensitiveKey(k) ? `${q}${k}${q}${colon}${v[0]}${FILTERED}${v[0]}` : m));
      s = s.replace(barePair, (m, k: string, colon: string, v: string) => (!v.startsWith('//') && (PASSWORD_KEY.test(k) || looksLikeSecretValue(v)) ? `${k}${colon}${FILTERED}` : m));
    }
    if (s.includes('://')) s = s.replace(URL_PASSWORD, `$1:${FILTERED}@`);
    // One scan for every auth scheme and secret prefix; the exact patterns run only when one is present.
    if (SECRET_HINT.test(s)) {
      s = s.replace(AUTH_SCHEME, (m, scheme: string, space: string, cred: string) => (looksLikeCredential(cred) ? `${scheme}${space}${FILTERED}` : m));
      for (const re of SECRET_SHAPES) s = s.replace(re, (m) => (/\d/.test(m) ? FILTERED : m));
    }
    if (/\d{4}/.test(s)) s = s.replace(CARD, (m) => (isCardNumber(m) ? FILTERED : m));
    return s;
  };

  const filtered = (v: unknown): unknown => (v === null || v === undefined || typeof v === 'boolean' ? v : FILTERED);

  const leaf = (value: unknown): unknown => {
    if (typeof value === 'string') return scrubText(value);
    if (typeof value === 'number') return Number.isSafeInteger(value) && value > 1e12 && isCardNumber(String(value)) ? FILTERED : value;
    return value;
  };

  /**
   * Scrubs a value: into new containers when `copy`, else into the containers it is given (only what changes is
   * written there).
   */
  const walk = (value: unknown, depth: number, copy: boolean): unknown => {
    if (typeof value !== 'object' || value === null) return leaf(value);
    if (depth >= MAX_DEPTH) return TRUNCATED;
    if (Array.isArray(value)) {
      const out: unknown[] = copy ? [] : value;
      const pairs = isPairList(value);
      for (let i = 0; i < value.length; i++) {
        if (!pairs) {
          out[i] = walk(value[i], depth + 1, copy);
          continue;
        }
        const pair = value[i] as [string, unknown];
        const clean = isSensitiveKey(pair[0]) ? filtered(pair[1]) : walk(pair[1], depth + 2, copy);
        if (copy) out[i] = [scrubText(pair[0]), clean];
        else [pair[0], pair[1]] = [scrubText(pair[0]), clean];
      }
      return out;
    }
    const obj = value as Record<string, unknown>;
    const out: Record<string, unknown> = copy ? {} : obj;
    for (const k in obj) {
      if (!Object.hasOwn(obj, k)) continue;
      const v = obj[k];
      const clean = isSensitiveKey(k) ? filtered(v) : walk(v, depth + 1, copy);
      if (!copy && clean === v) continue;
      // Plain assignment is several times faster; only a "__proto__" key needs defineProperty to stay data.
      if (k === '__proto__') Object.defineProperty(out, k, { value: clean, enumerable: true, writable: true, configurable: true });
      else out[k] = clean;
    }
    return out;
  };

  return { scrub: (value) => walk(value, 0, true), scrubInPlace: (value) => walk(value, 0, false), isSensitiveKey, scrubText };
}

const CACHE_LIMIT = 64;
const cache = new Map<string, Scrubber>();

/** Scrub an event (any JSON value) with the default keys plus the project's extra keys. */
export function scrubEvent(event: unknown, extraKeys: readonly string[] = []): unknown {
  return scrubberFor(extraKeys).scrub(event);
}

/** The same, in place (Scrubber.scrubInPlace): for an event the caller parsed and nobody else holds. */
export function scrubEventInPlace(event: unknown, extraKeys: readonly string[] = []): unknown {
  return scrubberFor(extraKeys).scrubInPlace(event);
}

function scrubberFor(extraKeys: readonly string[]): Scrubber {
  const cacheKey = extraKeys.join('\u0000');
  let scrubber = cache.get(cacheKey);
  if (!scrubber) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value ?? '');
    scrubber = createScrubber(extraKeys);
    cache.set(cacheKey, scrubber);
  }
  return scrubber;
}

/** `[["Authorization","…"],["Accept","…"]]`: a list whose every entry is a [string, value] pair. */
function isPairList(list: unknown[]): list is Array<[string, unknown]> {
  return list.length > 0 && list.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string');
}

/** A value after `token:` and the like: 8+ characters shaped like a credential, not a word such as "expired". */
function looksLikeSecretValue(s: string): boolean {
  return s.length >= 8 && looksLikeCredential(s);
}

function looksLikeCredential(s: string): boolean {
  return /[\d+/=._~-]/.test(s) || (/[a-z]/.test(s) && /[A-Z]/.test(s.slice(1)));
}

/** Luhn check on 13–19 digits with a card-network prefix. */
export function isCardNumber(candidate: string): boolean {
  const digits = candidate.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19 || !CARD_PREFIX.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
