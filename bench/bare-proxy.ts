/**
 * The ceiling for any Node proxy: a minimal undici pass-through, no parsing, no auth, no accounting.
 *   node bench/bare-proxy.ts <port> <upstream origin>
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [port, upstream] = [Number(process.argv[2] ?? 0), process.argv[3] ?? 'http://127.0.0.1:8081'];
const pool = new Pool(upstream, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

const server = createServer(async (req, res) => {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k) && typeof v === 'string') headers[k] = v;
  const abort = new AbortController();
  res.on('close', () => !res.writableFinished && abort.abort());
  try {
    const up = await pool.request({ method: req.method as 'POST', path: req.url ?? '/', headers, body: req, signal: abort.signal });
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(up.headers)) if (!HOP.has(k) && typeof v === 'string') out[k] = v;
    res.writeHead(up.statusCode, out);
    for await (const chunk of up.body) if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
    res.end();
  } catch {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  }
});
server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : port}\n`);
});
