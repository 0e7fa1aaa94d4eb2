/**
 * HTTP/1.1 by hand over a TCP socket, for what no HTTP client will send: oversized headers, malformed requests,
 * bodies that trickle in a byte at a time. Resolves with the status and body the server wrote before closing.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The whole answer as received (for assertions on the framing). */
  raw: string;
}

export interface RawRequest {
  /** Written at once when the socket connects. */
  head: string;
  /** Written one at a time, `everyMs` apart, after the head, until they run out or the server closes. */
  pieces?: string[];
  everyMs?: number;
  /** Give up (reject) after this long; generous by default for a loaded machine. */
  timeoutMs?: number;
}

export function parseRaw(raw: string): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = (end >= 0 ? raw.slice(0, end) : raw).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: end >= 0 ? raw.slice(end + 4) : '', raw };
}

export function rawHttp(url: string, req: RawRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let raw = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${req.timeoutMs ?? 30_000} ms; received so far: ${JSON.stringify(raw.slice(0, 200))}`));
    }, req.timeoutMs ?? 30_000);
    const finish = () => {
      clearTimeout(giveUp);
      clearInterval(timer);
      resolve(parseRaw(raw));
    };
    socket.on('connect', () => {
      socket.write(req.head);
      const pieces = req.pieces ?? [];
      if (pieces.length) {
        timer = setInterval(() => {
          if (sent >= pieces.length || !socket.writable) return clearInterval(timer);
          socket.write(pieces[sent++]);
        }, req.everyMs ?? 50);
      }
    });
    socket.on('data', (d) => (raw += d.toString('utf8')));
    // A reset after the answer was read still counts as an answer.
    socket.on('error', () => {});
    socket.on('close', finish);
  });
}
