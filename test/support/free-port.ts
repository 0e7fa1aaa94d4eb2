/** TCP ports free on 127.0.0.1 right now (bound to port 0, then released). */
import { createServer, type Server } from 'node:net';

function listen(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

const portOf = (s: Server): number => {
  const addr = s.address();
  return typeof addr === 'object' && addr ? addr.port : 0;
};

const close = (s: Server): Promise<void> => new Promise((resolve) => s.close(() => resolve()));

export async function freePort(): Promise<number> {
  const s = await listen();
  const port = portOf(s);
  await close(s);
  return port;
}

/**
 * `n` distinct free ports: all held open together before any is released. Ports asked for one after the other can
 * repeat (each is free again once released), and a test that binds two listeners to one port gets confusing failures
 * (HAProxy, for one, shares a port between two frontends without complaint).
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) servers.push(await listen());
    return servers.map(portOf);
  } finally {
    await Promise.all(servers.map(close));
  }
}
