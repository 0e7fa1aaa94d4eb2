/**
 * Stored responses on the answer side: the Response a responses call ends with is taken from the bytes the client
 * receives — the `response.completed` (or `response.incomplete`) event of a stream, the JSON body otherwise — so
 * every upstream style, translated or passed through, is stored the same way. The chunk that carries it (and the end
 * of the answer) waits until the copy is written: a client that sends `previous_response_id` the moment it has read
 * the answer finds it on any node. A failed write is logged and the answer goes on; a later reference to it is then
 * refused as unresolved, never silently dropped.
 */
import type { ServerResponse } from 'node:http';
import { SseParser, type SseEvent } from '../../core/sse.ts';
import type { Logger } from '../../core/logger.ts';

export type StoredResponseBody = Record<string, unknown> & { id: string };

const STORED_ENDS = new Set(['response.completed', 'response.incomplete']);

function responseOf(value: unknown): StoredResponseBody | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.object !== 'response' || typeof r.id !== 'string' || (r.status !== 'completed' && r.status !== 'incomplete')) return undefined;
  return r as StoredResponseBody;
}

function finalResponse(events: SseEvent[]): StoredResponseBody | undefined {
  for (const ev of events) {
    if (ev.event === undefined || !STORED_ENDS.has(ev.event)) continue;
    try {
      return responseOf((JSON.parse(ev.data) as { response?: unknown }).response);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

type Chunk = string | Uint8Array;
const bytesOf = (chunk: Chunk, encoding?: unknown): Buffer =>
  typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk);

/** Watches what `res` sends; `save` is called once with the final Response of a successful answer. */
export function tapStoredResponse(res: ServerResponse, save: (response: StoredResponseBody) => Promise<void>, log: Logger): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  let kind: 'sse' | 'json' | 'none' | undefined;
  const parser = new SseParser();
  const body: Buffer[] = [];
  let held: Promise<void> | undefined;

  // Told from the first bytes: the pipeline writes its head with writeHead(status, headers), which getHeader
  // cannot read back. A Response body is a JSON object; a stream starts with an SSE field.
  const decide = (first: unknown): void => {
    if (kind !== undefined || first === undefined) return;
    const head = (typeof first === 'string' ? first.slice(0, 16) : Buffer.from(first as Uint8Array).subarray(0, 16).toString('utf8')).trimStart();
    kind = res.statusCode !== 200 ? 'none' : head.startsWith('{') ? 'json' : /^(event|data|id|retry|:)/.test(head) ? 'sse' : 'none';
  };
  const hold = (response: StoredResponseBody): void => {
    held = save(response).catch((err: unknown) => log.warn({ err, response: response.id }, 'stored response could not be written; a later reference to it will be refused'));
  };

  res.write = ((chunk: Chunk, ...rest: unknown[]): boolean => {
    decide(chunk);
    if (held) {
      void held.then(() => write(chunk, ...rest));
      return true;
    }
    if (kind === 'sse') {
      const response = finalResponse(parser.feed(bytesOf(chunk, rest[0])));
      if (response) {
        hold(response);
        void held!.then(() => write(chunk, ...rest));
        return true;
      }
    } else if (kind === 'json') body.push(bytesOf(chunk, rest[0]));
    return write(chunk, ...rest);
  }) as ServerResponse['write'];

  res.end = ((chunk?: unknown, ...rest: unknown[]): ServerResponse => {
    const data = typeof chunk === 'string' || chunk instanceof Uint8Array ? chunk : undefined;
    decide(data);
    if (!held && data !== undefined) {
      if (kind === 'sse') {
        const response = finalResponse([...parser.feed(bytesOf(data, rest[0])), ...parser.end()]);
        if (response) hold(response);
      } else if (kind === 'json') body.push(bytesOf(data, rest[0]));
    }
    if (!held && kind === 'json' && body.length > 0) {
      try {
        const response = responseOf(JSON.parse(Buffer.concat(body).toString('utf8')));
        if (response) hold(response);
      } catch {
        // Not a Response: nothing to store.
      }
    }
    if (held) {
      void held.then(() => end(chunk, ...rest));
      return res;
    }
    return end(chunk, ...rest);
  }) as ServerResponse['end'];
}
