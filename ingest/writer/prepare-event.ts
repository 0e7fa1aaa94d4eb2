/**
 * The CPU part of writing an event, done off the fast path (STYLE.md a.9), in a worker thread when there is one:
 * parse, scrub (the built-in keys plus the project's own), normalise, group, and hash the person. Pure.
 *
 * Its text columns are storable (core/storable-text.ts: no NUL, no lone surrogate), so one event never fails a
 * batch; the stored document is made storable as it is serialised (json-param.ts).
 *
 * It yields what the writer's transaction needs to group events into issues (PreparedMeta) and the row to insert
 * into events (EventRow: the issue is joined in SQL by fingerprint, so the row needs no issue id).
 */
import { storableText } from '../../core/storable-text.ts';
import { fingerprintEvent } from '../lib/fingerprint-event.ts';
import { normalizeEvent } from '../lib/normalize-event.ts';
import { parseEventPayload } from '../lib/parse-event-payload.ts';
import { peopleHash } from '../lib/people-hash.ts';
import { scrubEventInPlace } from '../lib/scrub-event.ts';

/** What preparing one event needs, besides its bytes (structured-clone friendly). */
export interface PrepareInput {
  projectId: number;
  scrubKeys: string[];
  retentionDays: number;
  eventId: string;
  receivedAt: number;
  sentAt?: string;
  clientIp?: string;
}

export interface PreparedMeta {
  projectId: number;
  eventId: string;
  fingerprint: string;
  /** The fingerprint under the previous grouping version, when it differs (fingerprint-event.ts). */
  legacyFingerprint?: string;
  title: string;
  culprit: string;
  level: string;
  type: 'error' | 'default';
  /** ms */
  timestamp: number;
  /** ms */
  receivedAt: number;
  release?: string;
  environment?: string;
  personHash?: string;
}

export interface EventRow {
  project_id: number;
  event_id: string;
  fingerprint: string;
  timestamp: string;
  received_at: string;
  level: string;
  release: string | null;
  environment: string | null;
  title: string;
  /** The stored document: normalised and scrubbed. */
  data: Record<string, unknown>;
}

export function prepareEvent(input: PrepareInput, payload: Buffer): { meta: PreparedMeta; row: EventRow } {
  return prepareParsedEvent(input, parseEventPayload(payload));
}

/**
 * The same from the payload already parsed (the fast path parsed it to read its id: each event is parsed once).
 * The payload is handed over: it is scrubbed in place (its caller parsed it for this and reads it no more).
 */
export function prepareParsedEvent(input: PrepareInput, payload: Record<string, unknown>): { meta: PreparedMeta; row: EventRow } {
  const scrubbed = scrubEventInPlace(payload, input.scrubKeys);
  const event = normalizeEvent(scrubbed, {
    receivedAt: new Date(input.receivedAt),
    retentionDays: input.retentionDays,
    envelopeEventId: input.eventId,
    ...(input.sentAt !== undefined ? { sentAt: input.sentAt } : {}),
    ...(input.clientIp !== undefined ? { clientIp: input.clientIp } : {}),
  });
  const { hash: fingerprint, legacyHash } = fingerprintEvent(event);
  const meta: PreparedMeta = {
    projectId: input.projectId,
    eventId: event.eventId,
    fingerprint,
    ...(legacyHash !== undefined ? { legacyFingerprint: legacyHash } : {}),
    title: storableText(event.title),
    culprit: storableText(event.culprit),
    level: event.level,
    type: event.type,
    timestamp: event.timestamp.getTime(),
    receivedAt: event.receivedAt.getTime(),
  };
  if (event.release !== undefined) meta.release = storableText(event.release);
  if (event.environment !== undefined) meta.environment = storableText(event.environment);
  const person = peopleHash(event.user, { ip: event.autoIp, salt: String(input.projectId) });
  if (person !== undefined) meta.personHash = person;
  const row: EventRow = {
    project_id: input.projectId, event_id: event.eventId, fingerprint, timestamp: event.timestamp.toISOString(),
    received_at: event.receivedAt.toISOString(), level: event.level, release: meta.release ?? null,
    environment: meta.environment ?? null, title: meta.title, data: event.data,
  };
  return { meta, row };
}
