/**
 * A TCP relay in front of Redis that counts the commands its clients send (RESP arrays, parsed as they stream),
 * by name: how many Redis round trips the gateway spends per request, independent of anything else using the same
 * Redis server. Commands pipelined in one write still count one each.
 */
import { connect, createServer, type Server } from 'node:net';

/** Streams client→server RESP and counts each top-level array by its first element (the command name). */
export class RespCommandCounter {
  counts = new Map<string, number>();
  #buf: Buffer = Buffer.alloc(0);
  #remaining = 0;
  #bulk = -1;
  #first = true;

  feed(chunk: Buffer): void {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    let i = 0;
    for (;;) {
      if (this.#bulk >= 0) {
        if (this.#buf.length - i < this.#bulk + 2) break;
        if (this.#first) {
          const name = this.#buf.subarray(i, i + this.#bulk).toString('latin1').toLowerCase();
          this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
          this.#first = false;
        }
        i += this.#bulk + 2;
        this.#bulk = -1;
        this.#remaining--;
        continue;
      }
      const end = this.#buf.indexOf('\r\n', i);
      if (end < 0) break;
      const line = this.#buf.subarray(i, end).toString('latin1');
      i = end + 2;
      if (line[0] === '*' && this.#remaining === 0) {
        this.#remaining = Number(line.slice(1));
        this.#first = true;
      } else if (line[0] === '$') {
        this.#bulk = Number(line.slice(1));
      } else if (this.#remaining === 0 && line.length > 0) {
        // An inline command (no array): count its first word.
        const name = line.split(' ')[0].toLowerCase();
        this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
      }
    }
    this.#buf = this.#buf.subarray(i);
  }

  total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  reset(): void {
    this.counts.clear();
  }
}

export async function startCountingRelay(redisUrl: string): Promise<{ url: string; counter: RespCommandCounter; close(): Promise<void> }> {
  const target = new URL(redisUrl);
  const counter = new RespCommandCounter();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    const parser = new RespCommandCounter();
    parser.counts = counter.counts;
    client.on('data', (d: Buffer) => parser.feed(d));
    client.pipe(upstream).pipe(client);
    for (const s of [client, upstream]) s.on('error', () => {});
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `redis://127.0.0.1:${port}`, counter, close: () => new Promise<void>((r) => server.close(() => r())) };
}
