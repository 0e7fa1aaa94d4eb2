/**
 * How a queued event is stored in the events journal (core/writes/write-journal.ts holds the framing and checksum):
 *
 *     u32 LE  header length
 *     bytes   header: JSON {project, eventId, receivedAt, sentAt?, clientIp?}
 *     bytes   the event payload as received (JSON of an object)
 *
 * The project travels whole (its scrub keys, retention, team, spike threshold as they were when the event was
 * acknowledged), so a replay after a restart needs no lookup.
 */
import type { RowCodec } from '../../core/writes/durable-writer.ts';
import type { QueuedEvent } from './queued-event.ts';

type Header = Omit<QueuedEvent, 'payload' | 'bytes'>;

export const queuedEventCodec: RowCodec<QueuedEvent> = {
  encode(e) {
    return encodeQueuedEvents([e]).bytes;
  },
  decode(bytes) {
    const length = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.subarray(4, 4 + length).toString('utf8')) as Header;
    // A copy: the segment's buffer is not kept alive by one event.
    const payload = Buffer.from(bytes.subarray(4 + length));
    return { ...header, payload, bytes: payload.length };
  },
};

/**
 * Several events encoded one after the other into one buffer (the inbox insert's parameter): each event's bytes are
 * copied once, and a project's JSON is written once per batch instead of once per event.
 */
export function encodeQueuedEvents(events: readonly QueuedEvent[]): { bytes: Buffer; starts: number[]; lengths: number[] } {
  const projects = new Map<QueuedEvent['project'], string>();
  const headers = events.map((e) => {
    let project = projects.get(e.project);
    if (project === undefined) projects.set(e.project, (project = JSON.stringify(e.project)));
    // The same text as JSON.stringify of {project, eventId, receivedAt, sentAt?, clientIp?}.
    let json = `{"project":${project},"eventId":${JSON.stringify(e.eventId)},"receivedAt":${JSON.stringify(e.receivedAt)}`;
    if (e.sentAt !== undefined) json += `,"sentAt":${JSON.stringify(e.sentAt)}`;
    if (e.clientIp !== undefined) json += `,"clientIp":${JSON.stringify(e.clientIp)}`;
    return `${json}}`;
  });
  const lengths = events.map((e, i) => 4 + Buffer.byteLength(headers[i]) + e.payload.length);
  const bytes = Buffer.allocUnsafe(lengths.reduce((a, b) => a + b, 0));
  const starts: number[] = [];
  let at = 0;
  events.forEach((e, i) => {
    starts.push(at);
    const written = bytes.write(headers[i], at + 4);
    bytes.writeUInt32LE(written, at);
    e.payload.copy(bytes, at + 4 + written);
    at += lengths[i];
  });
  return { bytes, starts, lengths };
}
