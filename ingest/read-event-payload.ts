/**
 * The fast path's only look inside an event: it must be a JSON object, and its id (the envelope header's, else
 * the payload's, else a fresh one) must be readable, because the reply carries it. Everything else is the
 * writer's job (normalise, scrub, group).
 */
import { newEventId, normalizeEventId } from './lib/event-id.ts';
import { parseEventPayload } from './lib/parse-event-payload.ts';

export interface EventPayload {
  payload: Record<string, unknown>;
  eventId: string;
}

export function readEventPayload(bytes: Buffer, headerEventId?: string): EventPayload {
  const payload = parseEventPayload(bytes);
  if (headerEventId !== undefined) return { payload, eventId: headerEventId };
  const raw = payload.event_id;
  return { payload, eventId: raw === undefined || raw === null ? newEventId() : normalizeEventId(raw) };
}

/** The envelope header's `dsn`, read from the first line alone (the key may be there and nowhere else). */
export function peekEnvelopeDsn(body: Buffer): string | undefined {
  const end = body.indexOf(0x0a);
  const line = body.subarray(0, end === -1 ? body.length : end);
  if (line.length > 64 * 1024 || !line.includes('"dsn"')) return undefined;
  try {
    const header = JSON.parse(line.toString('utf8')) as unknown;
    if (typeof header !== 'object' || header === null) return undefined;
    const dsn = (header as { dsn?: unknown }).dsn;
    return typeof dsn === 'string' ? dsn : undefined;
  } catch {
    return undefined;
  }
}
