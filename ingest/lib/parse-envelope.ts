/**
 * The envelope framing SDKs post to `/api/{project}/envelope/`.
 *
 * ```text
 * Envelope = Headers { "\n" Item } [ "\n" ]
 * Item     = Headers "\n" Payload
 * Payload  = { * }
 * Headers  = one line of JSON, an object ("{}" is valid)
 * ```
 *
 * - Only `\n` (0x0a) is a newline. A `\r` before it is part of the payload (a header line's JSON tolerates it
 *   as whitespace).
 * - An item header with `length` (bytes): exactly that many bytes follow, then `\n` or the end of the body;
 *   anything else is malformed. Without `length`, the payload runs to the next `\n` or the end.
 * - Zero-length items (`{"type":"attachment","length":0}\n\n`) and an envelope with no items are valid; the
 *   final newline is optional.
 * - Envelope headers: `event_id`, `dsn`, `sdk`, `sent_at`, `trace`, plus any unknown header, kept as sent. A bad
 *   optional header (`dsn`, `sdk`, `sent_at`, `trace`) is dropped, not fatal; a bad `event_id` is refused because
 *   the reply and the stored event carry it.
 * - Item headers: `type` (required), `length`, `content_type`, `filename`, `attachment_type`, `item_count`.
 *   At most one `event` item per envelope.
 *
 * Leniency beyond the grammar: blank lines where an item header is expected are skipped (Relay's JSON reader
 * skips such whitespace too).
 *
 * Payloads are views (`subarray`) into the input buffer, not copies. Lengths are bytes, never characters.
 * @see https://develop.sentry.dev/sdk/data-model/envelopes/
 */
import { svcError } from '../../core/errors.ts';
import { EVENT_MAX_BYTES } from './ingest-limits.ts';
import { tryNormalizeEventId } from './event-id.ts';
import { parseTimestamp } from './parse-timestamp.ts';

export interface EnvelopeSdk {
  name: string;
  version: string;
  [key: string]: unknown;
}

export interface EnvelopeHeaders {
  /** Normalised to 32 lowercase hex. Overrides the event payload's own event_id. */
  event_id?: string;
  dsn?: string;
  sdk?: EnvelopeSdk;
  /** RFC 3339, as sent; valid when present (for clock-drift correction). */
  sent_at?: string;
  /** Dynamic sampling context: an object with a `trace_id`. */
  trace?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ItemHeaders {
  type: string;
  length?: number;
  content_type?: string;
  filename?: string;
  attachment_type?: string;
  item_count?: number;
  [key: string]: unknown;
}

export interface EnvelopeItem {
  headers: ItemHeaders;
  payload: Buffer;
}

export interface Envelope {
  headers: EnvelopeHeaders;
  items: EnvelopeItem[];
}

export interface ParseEnvelopeOptions {
  /** Largest `event` item payload in bytes; past it, event_too_large (413). Default 1 MiB. */
  maxEventBytes?: number;
}

const NL = 0x0a;

/** Parse an (already decompressed) envelope body. Throws invalid_envelope, invalid_event_id or event_too_large. */
export function parseEnvelope(body: Buffer, options: ParseEnvelopeOptions = {}): Envelope {
  const maxEventBytes = options.maxEventBytes ?? EVENT_MAX_BYTES;
  const headerEnd = lineEnd(body, 0);
  const headers = envelopeHeaders(parseHeaderLine(body.subarray(0, headerEnd), 'envelope header'));
  const items: EnvelopeItem[] = [];
  let offset = headerEnd + 1;
  let events = 0;
  while (offset < body.length) {
    if (isBlankLine(body, offset)) {
      offset = lineEnd(body, offset) + 1;
      continue;
    }
    const { item, next } = parseItem(body, offset, items.length);
    if (item.headers.type === 'event') {
      events += 1;
      if (events > 1) throw malformed('An envelope may carry at most one event item.', items.length);
      if (item.payload.length > maxEventBytes) {
        throw svcError('event_too_large', undefined, { item: items.length, limit_bytes: maxEventBytes });
      }
    }
    items.push(item);
    offset = next;
  }
  return { headers, items };
}

function parseItem(body: Buffer, offset: number, index: number): { item: EnvelopeItem; next: number } {
  const headerEnd = lineEnd(body, offset);
  const headers = itemHeaders(parseHeaderLine(body.subarray(offset, headerEnd), 'item header', index), index);
  // The last header needs no newline, so the payload may start at the end of the body.
  const payloadStart = Math.min(headerEnd + 1, body.length);
  let payloadEnd: number;
  if (headers.length !== undefined) {
    payloadEnd = payloadStart + headers.length;
    if (payloadEnd > body.length) throw malformed(`Item ${index} declares ${headers.length} bytes but the envelope ends first.`, index);
    if (payloadEnd < body.length && body[payloadEnd] !== NL) {
      throw malformed(`Item ${index} payload is not followed by a newline after its declared length.`, index);
    }
  } else {
    payloadEnd = lineEnd(body, payloadStart);
  }
  return { item: { headers, payload: body.subarray(payloadStart, payloadEnd) }, next: payloadEnd + 1 };
}

function parseHeaderLine(line: Buffer, what: string, index?: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    throw malformed(`The ${what} is not valid JSON.`, index);
  }
  if (!isPlainObject(value)) throw malformed(`The ${what} must be a JSON object.`, index);
  return value;
}

function envelopeHeaders(raw: Record<string, unknown>): EnvelopeHeaders {
  const out: EnvelopeHeaders = { ...raw };
  if (raw.event_id !== undefined && raw.event_id !== null) {
    const id = tryNormalizeEventId(raw.event_id);
    if (id === undefined) throw svcError('invalid_event_id', 'The envelope header event_id must be 32 hexadecimal characters or a UUID.');
    out.event_id = id;
  } else {
    delete out.event_id;
  }
  if (typeof raw.dsn !== 'string' || raw.dsn.trim() === '') delete out.dsn;
  if (!isSdk(raw.sdk)) delete out.sdk;
  if (typeof raw.sent_at !== 'string' || parseTimestamp(raw.sent_at) === undefined) delete out.sent_at;
  if (!isTrace(raw.trace)) delete out.trace;
  return out;
}

function itemHeaders(raw: Record<string, unknown>, index: number): ItemHeaders {
  const type = raw.type;
  if (typeof type !== 'string' || type === '') throw malformed(`Item ${index} has no type.`, index);
  const out: ItemHeaders = { ...raw, type };
  const length = raw.length;
  if (length === undefined || length === null) {
    delete out.length;
  } else if (typeof length === 'number' && Number.isSafeInteger(length) && length >= 0) {
    out.length = length;
  } else {
    throw malformed(`Item ${index} has a length that is not a non-negative integer.`, index);
  }
  for (const key of ['content_type', 'filename', 'attachment_type'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string') delete out[key];
  }
  const count = raw.item_count;
  if (count !== undefined && !(typeof count === 'number' && Number.isSafeInteger(count) && count >= 0)) delete out.item_count;
  return out;
}

function isSdk(v: unknown): v is EnvelopeSdk {
  return isPlainObject(v) && typeof v.name === 'string' && typeof v.version === 'string';
}

function isTrace(v: unknown): v is Record<string, unknown> {
  return isPlainObject(v) && tryNormalizeEventId(v.trace_id) !== undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Index of the next `\n` at or after `from`, or the body length. */
function lineEnd(body: Buffer, from: number): number {
  const i = body.indexOf(NL, from);
  return i === -1 ? body.length : i;
}

/** A line holding only spaces, tabs or `\r` (or nothing) before its `\n` or the end. */
function isBlankLine(body: Buffer, from: number): boolean {
  for (let i = from; i < body.length; i++) {
    const c = body[i];
    if (c === NL) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

function malformed(reason: string, item?: number) {
  return svcError('invalid_envelope', `The envelope is malformed: ${reason}`, item === undefined ? {} : { item });
}
