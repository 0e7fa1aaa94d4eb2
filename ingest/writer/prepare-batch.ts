/**
 * Prepares a batch of events whose bytes lie one after the other in one buffer (so that a single ArrayBuffer goes
 * to the worker thread, transferred rather than copied). Returns each event's metadata, the events rows already
 * serialised as the JSON parameter of the insert (UTF-8 bytes: encoding megabytes of text is work the worker does,
 * not the event loop; pg sends a Buffer parameter as it is), and the events that could not be prepared. Pure.
 */
import { parseEventPayload } from '../lib/parse-event-payload.ts';
import { jsonValue } from './json-param.ts';
import { prepareParsedEvent, type EventRow, type PrepareInput, type PreparedMeta } from './prepare-event.ts';

export interface BatchInput extends PrepareInput {
  offset: number;
  length: number;
}

export interface PreparedBatch {
  /** In input order, without the failed ones; `index` is the input's position. */
  metas: Array<PreparedMeta & { index: number }>;
  /** JSON of the EventRow list as UTF-8 bytes in a buffer of its own (transferable), ready for insertEvents. */
  rows: Buffer;
  failures: Array<{ index: number; eventId: string; message: string }>;
}

/** One prepared event: what the transaction groups by, and its events row as JSON (an element of `rows`). */
export interface ReadyEvent {
  meta: PreparedMeta;
  row: string;
}

/** Prepares one event from its parsed payload (each row serialised at once, so its object graph dies young). */
export function readyEvent(input: PrepareInput, payload: Record<string, unknown>): ReadyEvent {
  const { meta, row } = prepareParsedEvent(input, payload);
  return { meta, row: jsonValue(row satisfies EventRow) };
}

export function prepareBatch(inputs: readonly BatchInput[], bytes: Buffer): PreparedBatch {
  const metas: PreparedBatch['metas'] = [];
  const rows: string[] = [];
  const failures: PreparedBatch['failures'] = [];
  inputs.forEach((input, index) => {
    try {
      const { meta, row } = readyEvent(input, parseEventPayload(bytes.subarray(input.offset, input.offset + input.length)));
      metas.push({ ...meta, index });
      rows.push(row);
    } catch (err) {
      failures.push({ index, eventId: input.eventId, message: String((err as Error)?.message ?? err).slice(0, 200) });
    }
  });
  const text = `[${rows.join(',')}]`;
  const encoded = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  encoded.write(text);
  return { metas, rows: encoded, failures };
}
