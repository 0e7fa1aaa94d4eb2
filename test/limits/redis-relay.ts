/** A TCP relay in front of the test Redis that a test can cut and restore, to take Redis away from a running node. */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class RedisRelay {
  #target: URL;
  #server: Server | undefined;
  #sockets = new Set<Socket>();
  port = 0;

  constructor(redisUrl: string) {
    this.#target = new URL(redisUrl);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async open(): Promise<void> {
    if (this.#server) return;
    const server = createServer((client) => {
      const upstream = connect(Number(this.#target.port || 6379), this.#target.hostname);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /** Redis goes away: open connections are reset and new ones refused. */
  async cut(): Promise<void> {
    const s = this.#server;
    this.#server = undefined;
    for (const sock of this.#sockets) sock.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}
