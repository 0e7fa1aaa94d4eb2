/**
 * Where an SDK puts its client (public) key, and reading it from every place at once.
 *
 * ```text
 * X-Sentry-Auth / X-Client-Auth:  Sentry sentry_key=<pk>, sentry_version=7, sentry_client=<name>/<ver>[, sentry_secret=…]
 * Authorization:                  Sentry <same fields> | Bearer <pk> | Basic base64(<pk>:[secret])
 * query string:                   ?sentry_key=<pk>&sentry_version=7&sentry_client=…   (client_key= is ours)
 * envelope header "dsn":          {scheme}://{pk}[:{secret}]@{host}[:port]{path}/{project_id}
 * ```
 *
 * The "Sentry " prefix is case-insensitive; field names may carry the `sentry_` or `client_` prefix or none;
 * `sentry_timestamp` is ignored. Every place that holds a key is read, and all keys found must be equal
 * (conflicting_client_keys, 400); none at all is missing_client_key (401). A place that is present but holds no
 * readable key (an `Authorization` of another scheme, a DSN that does not parse) is not a source.
 * @see https://develop.sentry.dev/sdk/overview/#authentication
 */
import { svcError } from '../../core/errors.ts';

export type KeySource = 'x-sentry-auth' | 'x-client-auth' | 'authorization' | 'query' | 'envelope-dsn';

export interface ClientKey {
  publicKey: string;
  /** The client's `sentry_client` value, e.g. `sentry.javascript.node/8.0.0`, when it sent one. */
  sdk?: string;
  /** The protocol version the client announced (`sentry_version`), when it sent one. */
  protocolVersion?: string;
  /** The project id of the envelope's DSN, for the endpoint to compare with the one in the path. */
  dsnProjectId?: string;
  /** Every place the key was found, in reading order. */
  sources: KeySource[];
}

export type HeaderBag = Record<string, string | string[] | undefined>;
export type QueryBag = Record<string, unknown>;

export interface ClientKeyInput {
  /** Request headers; names are matched case-insensitively. */
  headers: HeaderBag;
  /** Parsed query string (values may be strings or lists of strings). */
  query?: QueryBag;
  /** The envelope header `dsn`, when the body is an envelope. */
  envelopeDsn?: string;
}

export interface ParsedDsn {
  scheme: 'http' | 'https';
  publicKey: string;
  secretKey?: string;
  host: string;
  port?: number;
  /** The path before the project id, without a trailing slash ('' at the root). */
  path: string;
  projectId: string;
}

interface AuthFields {
  key?: string;
  version?: string;
  client?: string;
}

const MAX_KEY_LENGTH = 256;
const KEY_CHARS = /^[\x21-\x7e]+$/;

/** Read the client key from every place a client may put it. */
export function extractClientKey(input: ClientKeyInput): ClientKey {
  const found: Array<{ source: KeySource; key: string }> = [];
  const meta: AuthFields = {};
  for (const [name, source] of [['x-sentry-auth', 'x-sentry-auth'], ['x-client-auth', 'x-client-auth']] as const) {
    for (const value of headerValues(input.headers, name)) {
      const fields = parseAuthFields(stripScheme(value, ['sentry', 'client']));
      mergeMeta(meta, fields);
      if (fields.key !== undefined) found.push({ source, key: fields.key });
    }
  }
  for (const value of headerValues(input.headers, 'authorization')) {
    const fields = parseAuthorization(value);
    mergeMeta(meta, fields);
    if (fields.key !== undefined) found.push({ source: 'authorization', key: fields.key });
  }
  const query = input.query ?? {};
  for (const name of ['sentry_key', 'client_key']) {
    for (const key of queryValues(query[name])) {
      const k = cleanKey(key);
      if (k !== undefined) found.push({ source: 'query', key: k });
    }
  }
  mergeMeta(meta, { version: queryValues(query.sentry_version)[0], client: queryValues(query.sentry_client)[0] });

  let dsnProjectId: string | undefined;
  if (input.envelopeDsn !== undefined) {
    const dsn = parseDsn(input.envelopeDsn);
    if (dsn) {
      found.push({ source: 'envelope-dsn', key: dsn.publicKey });
      dsnProjectId = dsn.projectId;
    }
  }

  if (found.length === 0) throw svcError('missing_client_key');
  const publicKey = found[0].key;
  const disagreeing = found.find((f) => f.key !== publicKey);
  if (disagreeing) {
    throw svcError('conflicting_client_keys', undefined, { sources: [...new Set(found.map((f) => f.source))] });
  }
  const out: ClientKey = { publicKey, sources: [...new Set(found.map((f) => f.source))] };
  if (meta.client !== undefined) out.sdk = meta.client;
  if (meta.version !== undefined) out.protocolVersion = meta.version;
  if (dsnProjectId !== undefined) out.dsnProjectId = dsnProjectId;
  return out;
}

/** Parse a DSN; undefined when it is not one (wrong scheme, no public key, no numeric project id). */
export function parseDsn(dsn: string): ParsedDsn | undefined {
  let url: URL;
  try {
    url = new URL(dsn.trim());
  } catch {
    return undefined;
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  const publicKey = cleanKey(safeDecode(url.username));
  if (publicKey === undefined || url.hostname === '') return undefined;
  const segments = url.pathname.replace(/\/+$/, '').split('/');
  const projectId = segments.pop() ?? '';
  if (!/^\d{1,19}$/.test(projectId)) return undefined;
  const out: ParsedDsn = { scheme, publicKey, host: url.hostname, path: segments.join('/'), projectId };
  const secret = safeDecode(url.password);
  if (secret) out.secretKey = secret;
  if (url.port !== '') out.port = Number(url.port);
  return out;
}

/** `Sentry …` fields, `Bearer <pk>`, or `Basic base64(<pk>:…)`; other schemes hold no key. */
function parseAuthorization(value: string): AuthFields {
  const m = /^\s*(\S+)\s+(.*)$/s.exec(value);
  if (!m) return {};
  const scheme = m[1].toLowerCase();
  const rest = m[2].trim();
  if (scheme === 'sentry') return parseAuthFields(rest);
  if (scheme === 'bearer') return { key: cleanKey(rest) };
  if (scheme === 'basic') {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(rest)) return {};
    const decoded = Buffer.from(rest, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return { key: cleanKey(colon === -1 ? decoded : decoded.slice(0, colon)) };
  }
  return {};
}

function stripScheme(value: string, schemes: string[]): string {
  const v = value.trim();
  for (const s of schemes) {
    if (v.length > s.length && v.slice(0, s.length).toLowerCase() === s && /\s/.test(v[s.length])) return v.slice(s.length).trim();
  }
  return v;
}

/** `sentry_key=…, sentry_version=7, …`: comma-separated `name=value`, names with or without a prefix. */
function parseAuthFields(text: string): AuthFields {
  const out: AuthFields = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim().toLowerCase().replace(/^(sentry|client)_/, '');
    const value = unquote(part.slice(eq + 1).trim());
    if (name === 'key') out.key = cleanKey(value);
    else if (name === 'version' && value !== '') out.version = value.slice(0, 16);
    else if (name === 'client' && value !== '') out.client = value.slice(0, 200);
  }
  return out;
}

function mergeMeta(into: AuthFields, from: AuthFields) {
  if (into.version === undefined && from.version !== undefined) into.version = from.version.slice(0, 16);
  if (into.client === undefined && from.client !== undefined) into.client = from.client.slice(0, 200);
}

function cleanKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const k = value.trim();
  return k !== '' && k.length <= MAX_KEY_LENGTH && KEY_CHARS.test(k) ? k : undefined;
}

function unquote(v: string): string {
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
}

function queryValues(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/**
 * The values of the header `name` (lowercase), its name matched in any case, in the bag's order. Only the three
 * names read here are looked for: no copy of every header per request.
 */
function headerValues(headers: HeaderBag, name: string): string[] {
  const out: string[] = [];
  for (const key in headers) {
    if (key.length !== name.length || !Object.hasOwn(headers, key) || key.toLowerCase() !== name) continue;
    const value = headers[key];
    if (value === undefined) continue;
    if (Array.isArray(value)) out.push(...value);
    else out.push(value);
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
