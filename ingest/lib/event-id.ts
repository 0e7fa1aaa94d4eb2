/**
 * Event ids: 32 lowercase hexadecimal characters. SDKs send that form; the dashed UUID form
 * (`8-4-4-4-12`, any case) is accepted too and normalised (see the error-ingest protocol notes, "Event fields").
 */
import { randomUUID } from 'node:crypto';
import { svcError } from '../../core/errors.ts';

const PLAIN = /^[0-9a-f]{32}$/i;
const DASHED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Some clients wrap the UUID in braces, as .NET prints it. */
const BRACED = /^\{([0-9a-f-]{36})\}$/i;

/** The 32-hex form of an event id, or undefined when the value is not an event id. */
export function tryNormalizeEventId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  let s = value.trim();
  const braced = BRACED.exec(s);
  if (braced) s = braced[1];
  if (PLAIN.test(s)) return s.toLowerCase();
  if (DASHED.test(s)) return s.replaceAll('-', '').toLowerCase();
  return undefined;
}

/** The 32-hex form of an event id; throws invalid_event_id (400) for anything else. */
export function normalizeEventId(value: unknown): string {
  const id = tryNormalizeEventId(value);
  if (id === undefined) throw svcError('invalid_event_id', undefined, { event_id: typeof value === 'string' ? value.slice(0, 64) : typeof value });
  return id;
}

/** A fresh random event id (a v4 UUID without dashes). */
export function newEventId(): string {
  return randomUUID().replaceAll('-', '');
}
