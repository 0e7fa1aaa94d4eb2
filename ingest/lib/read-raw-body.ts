/**
 * Reads an ingest request's body (as sent, still compressed) from its stream, bounded: a declared
 * `Content-Length` past `maxBytes` is refused before a byte is read, and reading stops as soon as the bytes pass
 * it (envelope_too_large, 413). Every chunk is added to the request's share of the inflate budget, so bodies
 * being read count as well as bodies being inflated.
 *
 * On a refusal the rest of the body is read and discarded rather than the stream destroyed: destroying a request
 * stream closes its socket, and the client would never see the 413.
 */
import type { Readable } from 'node:stream';
import { svcError } from '../../core/errors.ts';
import type { BudgetLease } from './inflate-budget.ts';

export async function readRawBody(source: Readable | Buffer, maxBytes: number, lease: BudgetLease, declaredLength?: string): Promise<Buffer> {
  const tooLarge = () => svcError('envelope_too_large', 'The body is larger than 20 MB as sent.', { limit_bytes: maxBytes });
  if (Buffer.isBuffer(source)) {
    if (source.length > maxBytes) throw tooLarge();
    lease.add(source.length);
    return source;
  }
  if (declaredLength !== undefined && Number(declaredLength) > maxBytes) {
    source.resume();
    throw tooLarge();
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const finish = (err: unknown, body?: Buffer) => {
      if (settled) return;
      settled = true;
      source.off('data', onData).off('end', onEnd).off('error', finish).off('close', onClose);
      if (err === null && body) return resolve(body);
      source.on('error', () => {}); // a late socket error of a discarded body is not an error of the request
      source.resume();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) return finish(tooLarge());
      try {
        lease.add(chunk.length);
      } catch (e) {
        return finish(e);
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (chunks.length === 1) return finish(null, chunks[0]);
      // The copy is counted while both exist (a 20 MB identity body is 40 MB for a moment).
      try {
        lease.add(total);
      } catch (e) {
        return finish(e);
      }
      const body = Buffer.concat(chunks, total);
      lease.drop(total);
      finish(null, body);
    };
    const onClose = () => finish(svcError('invalid_request', 'The client closed the connection before the body was complete.'));
    source.on('data', onData).on('end', onEnd).on('error', finish).on('close', onClose);
  });
}
