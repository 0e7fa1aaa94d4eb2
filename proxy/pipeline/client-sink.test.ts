import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientSink } from './client-sink.ts';

let server: Server | undefined;
// A client that keeps its connection for the next request, as SDKs do.
const agent = new Agent({ keepAlive: true });
afterEach(async () => {
  agent.destroy();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A server whose one answer is written through a ClientSink by `answer`; resolves with the sink and the client's response. */
async function serve(answer: (sink: ClientSink) => void): Promise<{ sink: ClientSink; res: IncomingMessage; srv: Server }> {
  let sink!: ClientSink;
  const srv = createServer((_req, res) => {
    sink = new ClientSink(res);
    answer(sink);
  });
  // Long enough that a kept-alive connection could not close by itself during a test.
  srv.keepAliveTimeout = 60_000;
  server = srv;
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    request({ port: (srv.address() as AddressInfo).port, host: '127.0.0.1', agent }, resolve).on('error', reject).end();
  });
  return { sink, res, srv };
}

/** Collects the body; `seen` is updated as chunks arrive. */
function collect(res: IncomingMessage) {
  const state = { seen: '', ended: false };
  res.on('data', (c: Buffer) => (state.seen += c.toString()));
  const done = new Promise<void>((r) => res.on('end', () => ((state.ended = true), r())));
  return { state, done };
}

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
}

describe('a client sink that holds the end of an answer', () => {
  it('sends what came before hold() and keeps the rest, the end included, until release()', async () => {
    const { sink, res } = await serve((s) => {
      s.head(200, { 'content-type': 'text/plain' });
      void s.write('before ');
      s.hold();
      void s.write('held ');
      s.end('end');
    });
    const { state, done } = collect(res);
    await until(() => state.seen === 'before ');
    expect(sink.holding).toBe(true);
    expect(state.ended).toBe(false);
    sink.release();
    await done;
    expect(state.seen).toBe('before held end');
  });

  it('closes the connection after an answer that ends once the server stopped accepting', async () => {
    const { sink, res, srv } = await serve((s) => {
      s.head(200, { 'content-type': 'text/plain', 'content-length': '2' });
      void s.write('o');
      s.hold();
      s.end('k');
    });
    const { state, done } = collect(res);
    const closed = new Promise<void>((r) => res.socket.on('close', () => r()));
    await until(() => state.seen === 'o');
    const stopped = new Promise((r) => srv.close(r));
    sink.release();
    await done;
    await closed;
    await stopped;
    expect(state.seen).toBe('ok');
  });
});
