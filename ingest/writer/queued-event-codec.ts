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
    const header: Header = { project: e.project, eventId: e.eventId, receivedAt: e.receivedAt };
    if (e.sentAt !== undefined) header.sentAt = e.sentAt;
    if (e.clientIp !== undefined) header.clientIp = e.clientIp;
    const json = Buffer.from(JSON.stringify(header));
    const out = Buffer.allocUnsafe(4 + json.length + e.payload.length);
    out.writeUInt32LE(json.length, 0);
    json.copy(out, 4);
    e.payload.copy(out, 4 + json.length);
    return out;
  },
  decode(bytes) {
    const length = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.subarray(4, 4 + length).toString('utf8')) as Header;
    // A copy: the segment's buffer is not kept alive by one event.
    const payload = Buffer.from(bytes.subarray(4 + length));
    return { ...header, payload, bytes: payload.length };
  },
};
