/**
 * Refusals made by Node's HTTP parser and timers before a request reaches a route, written in the family's error
 * object instead of Node's empty bodies or fastify's own shape (the http server's `clientError` event):
 *   431 request_headers_too_large  request line and headers larger than Node's limit (16 KB unless --max-http-header-size)
 *   408 request_timeout            the whole request (headers and body) not received within the request timeout
 *   413 payload_too_large          chunk extensions larger than Node's limit
 *   400 bad_request                anything else the parser cannot read (bad method, header, framing)
 * No route has run, so the caller's style is unknown: the gateway's /v1 and /v1beta paths get this shape too.
 * The connection is closed after the answer (its framing can no longer be trusted). A request that was already
 * answered (see `answered`) gets no second answer: the socket is just closed.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.ts';
import { errorBody, svcError, type SvcError } from '../errors.ts';

export function clientErrorOf(err: NodeJS.ErrnoException, requestTimeoutMs: number): SvcError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return svcError('request_headers_too_large', `The request line and headers are larger than ${maxHeaderSize / 1024} KB; send fewer or smaller headers, or a shorter URL.`, { limit_bytes: maxHeaderSize });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return svcError('request_timeout', `The request was not received within ${requestTimeoutMs / 1000} seconds (SVC_REQUEST_BODY_TIMEOUT_MS); send it again, faster.`, {
        timeout_ms: requestTimeoutMs,
      });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return svcError('payload_too_large', 'The chunk extensions of the request body are larger than allowed.');
    default:
      return svcError('bad_request', `The request is not valid HTTP/1.1${err.code ? ` (${err.code})` : ''}.`, err.code ? { reason: err.code } : {});
  }
}

/** The raw HTTP/1.1 answer for a refused connection: the error object, then the connection closes. */
export function rawErrorResponse(e: SvcError): string {
  const body = JSON.stringify(errorBody(e));
  const headers = [`HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? ''}`, 'Content-Type: application/json; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  for (const [k, v] of Object.entries(e.headers)) headers.push(`${k}: ${v}`);
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Whether the request on this socket already has an answer: a response has started, or one was completed early
 * (a route refused the request before reading its body, and Node is now discarding the rest of it). A second
 * answer would reach the client as the answer to a request it never sent. Node's own fields: the response being
 * written, and the parser's current request.
 */
function answered(socket: Socket): boolean {
  const s = socket as Socket & { _httpMessage?: { headersSent?: boolean }; parser?: { incoming?: { _dumped?: boolean } } | null };
  return Boolean(s._httpMessage?.headersSent || s.parser?.incoming?._dumped);
}

/** fastify's `clientErrorHandler`. */
export function clientErrorHandler(log: Logger, requestTimeoutMs: number): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    // A reset connection has nobody left to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const e = clientErrorOf(err, requestTimeoutMs);
    log.debug({ code: e.code, reason: err.code }, 'request refused before routing');
    if (socket.writable && !answered(socket)) socket.write(rawErrorResponse(e));
    socket.destroy();
  };
}
