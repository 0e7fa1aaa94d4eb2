import { describe, expect, it } from 'vitest';
import type { IngestProject } from '../project-lookup.ts';
import type { QueuedEvent } from './queued-event.ts';
import { encodeQueuedEvents, queuedEventCodec } from './queued-event-codec.ts';

const project: IngestProject = { id: 4, teamId: 't1', name: 'shop "web"', slug: 'shop', eventsPerMinute: 600, spikeThreshold: 50, scrubKeys: ['ssn'], retentionDays: 90 };
const other: IngestProject = { ...project, id: 5, name: 'ünïcode ✓' };

function event(p: IngestProject, i: number, extra: Partial<QueuedEvent> = {}): QueuedEvent {
  const payload = Buffer.from(JSON.stringify({ message: `event ${i} ✓` }));
  return { project: p, eventId: `${i}`.padStart(32, 'a'), payload, receivedAt: 1767225600000 + i, bytes: payload.length, ...extra };
}

describe('queued event codec', () => {
  const events = [event(project, 1), event(other, 2, { sentAt: '2026-01-01T00:00:00Z', clientIp: '10.0.0.1' }), event(project, 3, { clientIp: '::1' })];

  it('round-trips an event, header and bytes', () => {
    for (const e of events) expect(queuedEventCodec.decode(queuedEventCodec.encode(e))).toEqual(e);
  });

  it('encodes a batch into one buffer, each event as encode() writes it alone', () => {
    const { bytes, starts, lengths } = encodeQueuedEvents(events);
    expect(bytes.length).toBe(lengths.reduce((a, b) => a + b, 0));
    events.forEach((e, i) => {
      const part = bytes.subarray(starts[i], starts[i] + lengths[i]);
      const header: Record<string, unknown> = { project: e.project, eventId: e.eventId, receivedAt: e.receivedAt };
      if (e.sentAt !== undefined) header.sentAt = e.sentAt;
      if (e.clientIp !== undefined) header.clientIp = e.clientIp;
      const json = Buffer.from(JSON.stringify(header));
      expect(part.readUInt32LE(0)).toBe(json.length);
      expect(part.subarray(4, 4 + json.length).equals(json)).toBe(true);
      expect(queuedEventCodec.decode(part)).toEqual(e);
    });
  });
});
