/**
 * Normalise one event payload (already parsed JSON) into what the writer stores. Pure: no I/O, no clock
 * (receive time comes in), no randomness except a fresh event id when none was sent.
 *
 * - The payload must be a JSON object (else invalid_event, 400).
 * - event_id: the envelope header's when given, else the payload's; 32-hex or dashed UUID, normalised;
 *   unreadable → invalid_event_id (400); absent → generated.
 * - timestamp: RFC 3339 (no zone = UTC) or epoch seconds. Missing or unreadable → receive time. When the
 *   envelope's `sent_at` shows the client clock off by more than 55 minutes, the timestamp is corrected by that
 *   drift (as Relay does). Then more than 60 s in the future, or older than the retention, → clamped to the
 *   receive time, the value as sent kept in `original_timestamp` and the reason in `_meta.timestamp`.
 * - level: fatal, error, warning, info, debug (`warn`, `critical`, `log` mapped, and Python's numeric levels
 *   10 to 50 that raven-python sends); default error.
 * - Protocol 4 to 6 interface names (`sentry.interfaces.Exception`, `.Message`, `.Http`, `.User`…) are read
 *   as today's (`exception`, `logentry`, `request`, `user`…).
 * - Any other field that is present but unreadable is dropped, listed in `dropped` and `_meta.dropped`;
 *   unknown fields are kept as sent in `data`.
 * - `user.ip_address: "{{auto}}"` is dropped (see NormalizedEvent.autoIp).
 * - A synthetic exception (mechanism.synthetic, or no type) makes a message event: its value is the message
 *   when the event has none.
 * - Frames sent outside the exception (event-level `stacktrace`, `threads`) are moved under it
 *   (normalize-exception.ts).
 * - Over-long `logger` (64), `transaction` (200) and `culprit` (200) are cut, ending with `...`, as Sentry
 *   does, the length as sent kept in `_meta.truncated`; other identifiers over their limit are dropped.
 * - A `culprit` the SDK sent is kept (Sentry uses it as sent); else it is derived (event-title.ts).
 */
import { svcError } from '../../core/errors.ts';
import { EVENT_LEVELS, type EventLevel, type ExceptionValue, type NormalizedEvent } from './event-types.ts';
import { culpritOf, titleOf } from './event-title.ts';
import { newEventId, tryNormalizeEventId } from './event-id.ts';
import { isObject, readIdentifier, unset, type Json } from './event-values.ts';
import { mainException } from './grouping-frames.ts';
import { attachLooseStacktraces, readExceptions, readStacktrace } from './normalize-exception.ts';
import { readBreadcrumbs, readContexts, readFingerprint, readRequest, readTags, readUser } from './normalize-interfaces.ts';
import { readMessage } from './normalize-message.ts';
import { parseTimestamp } from './parse-timestamp.ts';

export interface NormalizeOptions {
  receivedAt: Date;
  /** How many days events are kept: older timestamps are clamped. */
  retentionDays: number;
  /** The envelope header event_id; overrides the payload's. */
  envelopeEventId?: string;
  /** The envelope header sent_at, for clock-drift correction. */
  sentAt?: string;
  /** The connection's IP, offered as `autoIp` when the SDK sent `ip_address: "{{auto}}"`. */
  clientIp?: string;
}

const FUTURE_SLACK_MS = 60_000;
const MIN_DRIFT_MS = 55 * 60_000;
const DAY_MS = 86_400_000;

const LEVEL_ALIASES: Record<string, EventLevel> = { warn: 'warning', critical: 'fatal', log: 'info', err: 'error' };
const LEVELS = new Set<string>(EVENT_LEVELS);

/** [wire name, field, max characters, cut (true) or dropped (false) when longer]. */
const IDENTIFIERS = [
  ['release', 'release', 200, false], ['dist', 'dist', 64, false], ['environment', 'environment', 64, false],
  ['server_name', 'serverName', 256, false], ['transaction', 'transaction', 200, true], ['logger', 'logger', 64, true],
] as const;
const MAX_CULPRIT = 200;

/** Protocol 4 to 6 interface names (raven-python, raven-js, raven-java…), read as Sentry still reads them. */
const LEGACY_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['sentry.interfaces.Exception', 'exception'], ['sentry.interfaces.Stacktrace', 'stacktrace'],
  ['sentry.interfaces.Message', 'logentry'], ['sentry.interfaces.LogEntry', 'logentry'],
  ['sentry.interfaces.Http', 'request'], ['sentry.interfaces.User', 'user'],
  ['sentry.interfaces.Breadcrumbs', 'breadcrumbs'], ['sentry.interfaces.Template', 'template'],
  ['sentry.interfaces.DebugMeta', 'debug_meta'],
];
/** Python's logging levels, which raven-python sends as numbers. */
const PYTHON_LEVELS: Record<number, EventLevel> = { 10: 'debug', 20: 'info', 30: 'warning', 40: 'error', 50: 'fatal' };
const CUT_MARKER = '...';

export function normalizeEvent(input: unknown, options: NormalizeOptions): NormalizedEvent {
  if (!isObject(input)) throw svcError('invalid_event', 'The event must be a JSON object.');
  const raw = withLegacyNames(input);
  const dropped: string[] = [];
  const drop = (path: string) => void dropped.push(path);
  const data: Json = { ...raw };
  const meta: Json = {};
  // Whether a key sent was removed from data: then the document is returned as a plain copy (unset, event-values.ts).
  let removed = false;
  const remove = (key: string) => void (removed = unset(data, key) || removed);
  const setData = (key: string, value: unknown) => (value === undefined ? remove(key) : void (data[key] = value));

  // Fields only this function may write: a client cannot forge them.
  for (const key of ['_meta', 'original_timestamp', 'received', 'title', 'culprit', 'type']) remove(key);
  const truncated: Record<string, number> = {};
  const readCut = (wire: string, max: number, cut: boolean): string | undefined => {
    const v = raw[wire];
    const whole = readIdentifier(v, Number.MAX_SAFE_INTEGER);
    if (whole === undefined || whole.length <= max) return whole;
    if (!cut) return undefined;
    truncated[wire] = whole.length;
    return whole.slice(0, max - CUT_MARKER.length) + CUT_MARKER;
  };

  const eventId = readEventId(raw.event_id, options.envelopeEventId);
  data.event_id = eventId;

  const timestamp = readEventTimestamp(raw.timestamp, options, data, meta, drop);
  data.timestamp = timestamp.toISOString();
  data.received = options.receivedAt.toISOString();

  const level = readLevel(raw.level, drop);
  data.level = level;

  const platformRaw = readIdentifier(raw.platform, 64)?.toLowerCase();
  const platformOk = platformRaw !== undefined && /^[a-z0-9_.-]+$/.test(platformRaw);
  if (!platformOk && raw.platform !== undefined && raw.platform !== null) drop('platform');
  const platform = platformOk ? platformRaw : 'other';
  data.platform = platform;

  const fields: Partial<Record<(typeof IDENTIFIERS)[number][1], string>> = {};
  for (const [wire, name, max, cut] of IDENTIFIERS) {
    const v = readCut(wire, max, cut);
    if (v !== undefined) {
      fields[name] = v;
      data[wire] = v;
    } else {
      if (raw[wire] !== undefined && raw[wire] !== null) drop(wire);
      remove(wire);
    }
  }

  const exceptions = take(readExceptions(raw.exception, drop), [], 'exception', raw.exception, drop);
  if (attachLooseStacktraces(exceptions, raw, drop)) remove('stacktrace');
  if (exceptions.length > 0) data.exception = { values: exceptions };
  else remove('exception');

  let message = readMessage(raw.logentry, raw.message);
  if (message === undefined && [raw.logentry, raw.message].some((v) => v !== undefined && v !== null && v !== '')) drop('message');
  if (!message && !mainException(exceptions)) {
    const synthetic = [...exceptions].reverse().find((e) => e.value);
    if (synthetic?.value) message = { formatted: synthetic.value };
  }
  remove('message');
  remove('logentry');
  if (message) data.logentry = { ...(message.template !== undefined ? { message: message.template } : {}), ...(message.params ? { params: message.params } : {}), formatted: message.formatted };

  const tags = take(readTags(raw.tags, drop), {}, 'tags', raw.tags, drop);
  setData('tags', Object.keys(tags).length > 0 ? tags : undefined);
  const breadcrumbs = take(readBreadcrumbs(raw.breadcrumbs, drop), [], 'breadcrumbs', raw.breadcrumbs, drop);
  setData('breadcrumbs', breadcrumbs.length > 0 ? { values: breadcrumbs } : undefined);
  const userResult = readUser(raw.user, drop);
  if (userResult === undefined && raw.user !== undefined && raw.user !== null) drop('user');
  setData('user', userResult?.user);
  const request = readRequest(raw.request, drop);
  if (request === undefined && raw.request !== undefined && raw.request !== null) drop('request');
  setData('request', request);
  const contexts = take(readContexts(raw.contexts, drop), {}, 'contexts', raw.contexts, drop);
  setData('contexts', Object.keys(contexts).length > 0 ? contexts : undefined);
  const fingerprint = readFingerprint(raw.fingerprint);
  if (fingerprint === undefined && raw.fingerprint !== undefined && raw.fingerprint !== null) drop('fingerprint');
  setData('fingerprint', fingerprint);

  const grouping = { exceptions, level, message: message?.formatted, transaction: fields.transaction };
  const title = titleOf(grouping);
  const culprit = readCut('culprit', MAX_CULPRIT, true) ?? culpritOf({ ...grouping, exceptions: withEventFrames(exceptions, raw), url: request?.url, platform });
  const sentCulprit = typeof raw.culprit === 'string' ? raw.culprit.trim() : raw.culprit;
  if (sentCulprit !== undefined && sentCulprit !== null && sentCulprit !== '' && readIdentifier(sentCulprit, Number.MAX_SAFE_INTEGER) === undefined) drop('culprit');
  const type = mainException(exceptions) ? 'error' : 'default';
  data.type = type;
  data.title = title;
  data.culprit = culprit;
  if (dropped.length > 0) meta.dropped = dropped;
  if (Object.keys(truncated).length > 0) meta.truncated = truncated;
  if (Object.keys(meta).length > 0) data._meta = meta;

  const event: NormalizedEvent = {
    eventId, timestamp, receivedAt: options.receivedAt, type, level, platform, ...fields,
    exceptions, breadcrumbs, tags, contexts, title, culprit, dropped, data: removed ? { ...data } : data,
  };
  if (message) {
    event.message = message.formatted;
    if (message.template !== undefined) event.messageTemplate = message.template;
  }
  if (userResult?.user) event.user = userResult.user;
  if (request) event.request = request;
  if (fingerprint) event.fingerprint = fingerprint;
  if (userResult?.autoIp && options.clientIp) event.autoIp = options.clientIp;
  return event;
}

/** For the culprit of a message event: an event-level stack trace left where it was counts as its capture site. */
function withEventFrames(exceptions: ExceptionValue[], raw: Json): ExceptionValue[] {
  if (exceptions.length > 0 || !isObject(raw.stacktrace)) return exceptions;
  // Stored as sent: its unreadable frames are not dropped from the document, so not recorded as dropped either.
  const stacktrace = readStacktrace(raw.stacktrace, () => {}, 'stacktrace');
  return stacktrace ? [{ stacktrace, mechanism: { synthetic: true } }] : exceptions;
}

/** The event with legacy interface names moved to today's (today's name wins when both are sent). */
function withLegacyNames(raw: Json): Json {
  if (!LEGACY_NAMES.some(([legacy]) => Object.hasOwn(raw, legacy))) return raw;
  const out: Json = { ...raw };
  for (const [legacy, name] of LEGACY_NAMES) {
    if (!Object.hasOwn(out, legacy)) continue;
    if (out[name] === undefined || out[name] === null) out[name] = out[legacy];
    delete out[legacy];
  }
  return out;
}

function readEventId(payloadId: unknown, envelopeId: string | undefined): string {
  const source = envelopeId ?? payloadId;
  if (source === undefined || source === null) return newEventId();
  const id = tryNormalizeEventId(source);
  if (id === undefined) throw svcError('invalid_event_id');
  return id;
}

function readEventTimestamp(raw: unknown, options: NormalizeOptions, data: Json, meta: Json, drop: (p: string) => void): Date {
  const received = options.receivedAt.getTime();
  if (raw === undefined || raw === null) return new Date(received);
  const parsed = parseTimestamp(raw);
  if (!parsed) {
    drop('timestamp');
    data.original_timestamp = raw;
    meta.timestamp = 'invalid';
    return new Date(received);
  }
  let t = parsed.getTime();
  const sentAt = options.sentAt === undefined ? undefined : parseTimestamp(options.sentAt);
  if (sentAt) {
    const drift = received - sentAt.getTime();
    if (Math.abs(drift) > MIN_DRIFT_MS) {
      t += drift;
      meta.clock_drift_ms = drift;
    }
  }
  const oldest = received - Math.max(0, options.retentionDays) * DAY_MS;
  if (t > received + FUTURE_SLACK_MS || t < oldest) {
    data.original_timestamp = raw;
    meta.timestamp = t > received ? 'clamped_future' : 'clamped_past';
    return new Date(received);
  }
  return new Date(t);
}

function readLevel(raw: unknown, drop: (p: string) => void): EventLevel {
  if (raw === undefined || raw === null) return 'error';
  if (typeof raw === 'number' && Object.hasOwn(PYTHON_LEVELS, raw)) return PYTHON_LEVELS[raw];
  if (typeof raw === 'string') {
    const l = raw.trim().toLowerCase();
    if (isLevel(l)) return l;
    if (Object.hasOwn(LEVEL_ALIASES, l)) return LEVEL_ALIASES[l];
  }
  drop('level');
  return 'error';
}

function isLevel(l: string): l is EventLevel {
  return LEVELS.has(l);
}

/** The reader's value, or the fallback (recording a drop when the raw value was present). */
function take<T>(value: T | undefined, fallback: T, path: string, raw: unknown, drop: (p: string) => void): T {
  if (value !== undefined) return value;
  if (raw !== undefined && raw !== null) drop(path);
  return fallback;
}
