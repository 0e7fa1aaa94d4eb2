/**
 * One call to an upstream through an account's dispatcher, with failures turned into catalogue errors: a timeout
 * waiting for headers or between body chunks is 504 `upstream_timeout`; a connection that cannot be opened is 502
 * `upstream_unreachable`; one that breaks once the request was sent (reset, closed by the other side, a body
 * shorter than announced) is 502 `upstream_connection_lost`. A call aborted because the client went away rethrows
 * the abort as is.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { svcError, type SvcError } from '../../core/errors.ts';
import type { UpstreamAccount } from '../accounts/upstream-account.ts';
import { readChunks } from './read-chunks.ts';
import { UpstreamBody } from './upstream-body.ts';

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
}

/** An upstream answer: undici's ResponseData (subscription accounts), or a lean UpstreamBody (API-key accounts). */
export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable | UpstreamBody;
}

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** An open connection that broke: undici's "other side closed" and socket errors, resets, a short body. */
const LOST = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);

/**
 * A catalogue error for an undici failure, or undefined when the failure is the caller's own abort. `reading`: the
 * answer had started (its head arrived), so any failure but a timeout is a lost connection.
 */
export function upstreamFailure(err: unknown, signal: AbortSignal, reading = false): SvcError | undefined {
  if (signal.aborted) return undefined;
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && TIMEOUTS.has(code)) return svcError('upstream_timeout');
  const why = typeof code === 'string' ? code : (err as Error)?.message ?? 'unknown error';
  if (reading || (typeof code === 'string' && LOST.has(code))) {
    return svcError('upstream_connection_lost', `The connection to the upstream provider was lost before its answer was complete (${why}).`);
  }
  return svcError('upstream_unreachable', `The upstream provider could not be reached (${why}).`);
}

export async function sendUpstream(account: UpstreamAccount, req: UpstreamRequest): Promise<UpstreamResponse> {
  // Subscription accounts authenticate each call themselves (proxy/subscriptions/subscription-send.ts).
  if (account.send) return account.send(req);
  try {
    return await dispatchUpstream(account, req);
  } catch (err) {
    throw upstreamFailure(err, req.signal) ?? err;
  }
}

/** The call through undici's dispatch API: the head resolves the promise, the body follows as an UpstreamBody. */
function dispatchUpstream(account: UpstreamAccount, req: UpstreamRequest): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    const signal = req.signal;
    let controller: Dispatcher.DispatchController | undefined;
    let body: UpstreamBody | undefined;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (signal.aborted) c.abort(signal.reason);
      },
      onResponseStart(c, statusCode, headers) {
        if (statusCode < 200) return; // 1xx: the real answer follows
        body = new UpstreamBody(c);
        resolve({ statusCode, headers, body });
      },
      onResponseData(_c, chunk) {
        body?.push(chunk);
      },
      onResponseEnd() {
        body?.end();
      },
      onResponseError(_c, err) {
        if (body) body.fail(err);
        else reject(err);
      },
    };
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => controller?.abort(signal.reason), { once: true });
    try {
      account.dispatcher.dispatch({ origin: account.origin, method: req.method, path: req.path, headers: req.headers, body: req.body }, handler);
    } catch (err) {
      reject(err);
    }
  });
}

/** Reads a whole (error or JSON) body, at most `limit` bytes. */
export async function readBody(body: UpstreamResponse['body'], limit = 64 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  await readChunks(body, (c) => {
    size += c.length;
    if (size > limit) throw svcError('upstream_bad_response', 'The upstream answer is larger than the gateway accepts.');
    chunks.push(c);
    return undefined;
  });
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}
