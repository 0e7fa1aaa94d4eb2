/** A real HTTP receiver on 127.0.0.1 for webhook tests: records every request and answers from a script. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  requests: Received[];
  /** Statuses to answer, in order; when empty, `fallback` (200 unless set). 0 = never answer (hang). */
  script: number[];
  fallback: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging = new Set<() => void>();
  const rec: Receiver = { url: '', requests: [], script: [], fallback: 200, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      rec.requests.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = rec.script.length ? (rec.script.shift() as number) : rec.fallback;
      if (status === 0) {
        hanging.add(() => res.destroy());
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 400 ? `receiver says ${status}` : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  rec.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  rec.close = async () => {
    for (const h of hanging) h();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return rec;
}
