/** A request that reaches a draining node (on a kept-alive connection) gets the error object with Retry-After. */
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from './create-app.ts';

function readResponse(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString();
      const head = text.indexOf('\r\n\r\n');
      const len = /content-length: (\d+)/i.exec(text)?.[1];
      if (head >= 0 && len !== undefined && text.length >= head + 4 + Number(len)) {
        socket.off('data', onData);
        resolve(text);
      }
    };
    socket.on('data', onData);
  });
}

describe('a closing node', () => {
  it('refuses requests on kept-alive connections with 503 service_unavailable and Retry-After', async () => {
    const app = createApp({ log: pino({ level: 'silent' }), bodyLimit: 1024 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    app.get('/slow', async () => {
      await held;
      return { ok: true };
    });
    app.get('/fast', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    // The connection is busy when the close begins, so it is not reaped as idle.
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    const first = readResponse(socket);
    await new Promise((r) => setTimeout(r, 50));
    const closed = app.close();
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect(await first).toMatch(/^HTTP\/1.1 200/);
    const second = readResponse(socket);
    socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    const text = await second;
    expect(text).toMatch(/^HTTP\/1.1 503/);
    expect(text).toMatch(/retry-after: 1/i);
    expect(text).toMatch(/connection: close/i);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('service_unavailable');
    expect(body.error.message).toContain('shutting down');
    socket.destroy();
    await closed;
  });
});
