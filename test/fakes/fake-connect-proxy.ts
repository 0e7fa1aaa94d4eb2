/**
 * A fake outbound HTTP proxy on 127.0.0.1 for per-account proxy tests: tunnels CONNECT requests and forwards
 * absolute-URI requests, recording the target of each (so a test can tell which calls went through it). With
 * `refuse`, it records the target and answers 403 without connecting anywhere (a guard that keeps a client off the
 * internet and tells the test where it tried to go).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';

export class FakeConnectProxy {
  /** host:port of every tunnel or forwarded request, in order. */
  readonly targets: string[] = [];
  url = '';
  #server: Server;
  #sockets = new Set<Socket>();

  constructor(opts: { refuse?: boolean } = {}) {
    this.#server = createServer((req, res) => {
      const u = new URL(req.url ?? '');
      this.targets.push(u.host);
      if (opts.refuse) return void res.writeHead(403).end();
      const up = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    this.#server.on('connect', (req, client: Socket, head: Buffer) => {
      this.targets.push(req.url ?? '');
      if (opts.refuse) return void client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      const [host, port] = (req.url ?? '').split(':');
      const up = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) up.write(head);
        up.pipe(client);
        client.pipe(up);
      });
      this.#sockets.add(client).add(up);
      const drop = () => {
        client.destroy();
        up.destroy();
      };
      up.on('error', drop);
      client.on('error', drop);
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
