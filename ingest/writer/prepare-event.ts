/**
 * The CPU part of writing an event, done by the writer before its transaction: scrub (the built-in keys plus the
 * project's own), normalise, group, and hash the person. The fast path did none of this (STYLE.md a.9).
 */
import { fingerprintEvent } from '../lib/fingerprint-event.ts';
import { normalizeEvent } from '../lib/normalize-event.ts';
import { peopleHash } from '../lib/people-hash.ts';
import { scrubEvent } from '../lib/scrub-event.ts';
import type { IngestProject } from '../project-lookup.ts';
import type { QueuedEvent } from './queued-event.ts';

export interface PreparedEvent {
  project: IngestProject;
  eventId: string;
  fingerprint: string;
  title: string;
  culprit: string;
  level: string;
  type: 'error' | 'default';
  timestamp: Date;
  receivedAt: Date;
  release?: string;
  environment?: string;
  personHash?: string;
  /** The stored document: normalised and scrubbed. */
  data: Record<string, unknown>;
}

export function prepareEvent(q: QueuedEvent): PreparedEvent {
  const scrubbed = scrubEvent(q.payload, q.project.scrubKeys);
  const event = normalizeEvent(scrubbed, {
    receivedAt: new Date(q.receivedAt),
    retentionDays: q.project.retentionDays,
    envelopeEventId: q.eventId,
    ...(q.sentAt !== undefined ? { sentAt: q.sentAt } : {}),
    ...(q.clientIp !== undefined ? { clientIp: q.clientIp } : {}),
  });
  const fp = fingerprintEvent(event);
  const out: PreparedEvent = {
    project: q.project,
    eventId: event.eventId,
    fingerprint: fp.hash,
    title: event.title,
    culprit: event.culprit,
    level: event.level,
    type: event.type,
    timestamp: event.timestamp,
    receivedAt: event.receivedAt,
    data: event.data,
  };
  if (event.release !== undefined) out.release = event.release;
  if (event.environment !== undefined) out.environment = event.environment;
  const person = peopleHash(event.user, { ip: event.autoIp, salt: String(q.project.id) });
  if (person !== undefined) out.personHash = person;
  return out;
}
