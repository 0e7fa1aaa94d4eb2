/**
 * Prepares a batch of events whose bytes lie one after the other in one buffer (so that a single ArrayBuffer goes
 * to the worker thread, transferred rather than copied). Returns each event's metadata, the events rows already
 * serialised as the two text parameters of the insert (UTF-8 bytes: encoding megabytes of text is work the worker
 * does, not the event loop; pg sends a Buffer parameter as it is), and the events that could not be prepared. Pure.
 *
 * The two parameters (EventRowsText): the rows' columns as one JSON array, and their documents (`data`) one after
 * the other, separated by RS (U+001E, which JSON text never holds unescaped). Postgres then parses each document
 * once, into the jsonb it stores: a single JSON array with the documents inside cost it about a third more CPU per
 * event (the whole batch parsed into one jsonb value, then each document copied out of it).
 */
import { parseEventPayload } from '../lib/parse-event-payload.ts';
import { jsonValue } from './json-param.ts';
import { prepareParsedEvent, type EventRow, type PrepareInput, type PreparedMeta } from './prepare-event.ts';

export interface BatchInput extends PrepareInput {
  offset: number;
  length: number;
}

/** A batch's events rows as insertEvents takes them: text, or its UTF-8 bytes. */
export interface EventRowsText<T extends string | Buffer = string | Buffer> {
  /** The rows without their documents, as a JSON array. */
  columns: T;
  /** The rows' documents in the same order, separated by RS. */
  documents: T;
}

/** Separates the documents in EventRowsText.documents. */
export const DOCUMENT_SEPARATOR = '\x1e';

export interface PreparedBatch {
  /** In input order, without the failed ones; `index` is the input's position. */
  metas: Array<PreparedMeta & { index: number }>;
  /** The rows as UTF-8 bytes, each part in a buffer of its own (transferable), ready for insertEvents. */
  rows: EventRowsText<Buffer>;
  failures: Array<{ index: number; eventId: string; message: string }>;
}

/** One prepared event: what the transaction groups by, and its events row serialised (one element of each part of EventRowsText). */
export interface ReadyEvent {
  meta: PreparedMeta;
  /** The row's columns as JSON, without its document. */
  row: string;
  /** The row's document (`data`) as JSON. */
  document: string;
}

/** Prepares one event from its parsed payload (each row serialised at once, so its object graph dies young). */
export function readyEvent(input: PrepareInput, payload: Record<string, unknown>): ReadyEvent {
  const { meta, row } = prepareParsedEvent(input, payload);
  return { meta, ...serializeRow(row) };
}

function serializeRow({ data, ...columns }: EventRow): { row: string; document: string } {
  return { row: jsonValue(columns), document: jsonValue(data) };
}

/** The rows as insertEvents takes them, from the serialised rows of ReadyEvent. */
export function joinRows(rows: ReadonlyArray<{ row: string; document: string }>): EventRowsText<string> {
  return { columns: `[${rows.map((r) => r.row).join(',')}]`, documents: rows.map((r) => r.document).join(DOCUMENT_SEPARATOR) };
}

/** The same from rows not yet serialised. */
export function eventRowsText(rows: readonly EventRow[]): EventRowsText<string> {
  return joinRows(rows.map(serializeRow));
}

export function prepareBatch(inputs: readonly BatchInput[], bytes: Buffer): PreparedBatch {
  const metas: PreparedBatch['metas'] = [];
  const ready: ReadyEvent[] = [];
  const failures: PreparedBatch['failures'] = [];
  inputs.forEach((input, index) => {
    try {
      const event = readyEvent(input, parseEventPayload(bytes.subarray(input.offset, input.offset + input.length)));
      metas.push({ ...event.meta, index });
      ready.push(event);
    } catch (err) {
      failures.push({ index, eventId: input.eventId, message: String((err as Error)?.message ?? err).slice(0, 200) });
    }
  });
  const text = joinRows(ready);
  return { metas, rows: { columns: encode(text.columns), documents: encode(text.documents) }, failures };
}

/** UTF-8 bytes in a buffer of their own (never a pooled one: it is transferred). */
function encode(text: string): Buffer {
  const encoded = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  encoded.write(text);
  return encoded;
}
