import { createServer, type Server } from 'node:http';
import type { LookupAddress } from 'node:dns';
import { interceptors, request, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedAgent, guardedLookup, isPrivateTargetError, type Resolver } from './guarded-agent.ts';

/** A server that counts the connections it accepts, so a test can prove no socket was opened. */
async function listen(host: string, handler: (path: string) => { status: number; location?: string }): Promise<{ server: Server; port: number; connections: () => number; paths: string[] }> {
  let connections = 0;
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    const { status, location } = handler(req.url ?? '');
    res.writeHead(status, location ? { location } : {}).end('reached');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, host, r));
  return { server, port: (server.address() as { port: number }).port, connections: () => connections, paths };
}

const fixed = (table: Record<string, string[]>): Resolver => (host, _opts, cb) => {
  const addrs = table[host];
  if (!addrs) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
  cb(null, addrs.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })));
};

async function outcome(url: string, dispatcher: Dispatcher): Promise<number | Error> {
  try {
    const res = await request(url, { dispatcher, reset: true });
    await res.body.dump();
    return res.statusCode;
  } catch (err) {
    return err as Error;
  }
}

let loopback: Awaited<ReturnType<typeof listen>>;
// Stands in for a server on the internet: 127.0.0.2 is exempted from the check in the tests that use it.
let publicStandIn: Awaited<ReturnType<typeof listen>>;
const exempt = (a: string) => a === '127.0.0.2';

beforeAll(async () => {
  loopback = await listen('127.0.0.1', () => ({ status: 200 }));
  publicStandIn = await listen('127.0.0.2', (path) => (path === '/hop' ? { status: 302, location: `http://127.0.0.1:${loopback.port}/secret` } : { status: 200 }));
});
afterAll(async () => {
  for (const s of [loopback, publicStandIn]) await new Promise<void>((r) => s?.server.close(() => r()));
});

describe('guardedAgent', () => {
  it('refuses every spelling of a private literal host before opening a socket', async () => {
    const agent = guardedAgent({ optIn: 'SVC_ALLOW_PRIVATE_WEBHOOKS' });
    const p = loopback.port;
    const before = loopback.connections();
    try {
      for (const url of [
        `http://127.0.0.1:${p}/`, `http://[::1]:${p}/`, `http://[::ffff:127.0.0.1]:${p}/`, `http://2130706433:${p}/`, `http://0177.0.0.1:${p}/`,
        `http://0x7f000001:${p}/`, `http://0x7f.1:${p}/`, `http://127.1:${p}/`, `http://localhost:${p}/`, `http://api.localhost:${p}/`,
        `http://169.254.169.254:${p}/`, `http://10.0.0.1:${p}/`, `https://127.0.0.1:${p}/`,
      ]) {
        const r = await outcome(url, agent);
        expect(r, url).toBeInstanceOf(Error);
        expect(isPrivateTargetError(r), url).toBe(true);
        expect((r as Error).message).toMatch(/private address, which this instance does not allow \(SVC_ALLOW_PRIVATE_WEBHOOKS\)\./);
      }
    } finally {
      await agent.close();
    }
    expect(loopback.connections()).toBe(before);
  });

  it('refuses a name that resolves to a private address, at connect time', async () => {
    const agent = guardedAgent({ resolve: fixed({ 'loopback.example': ['127.0.0.1'], 'mixed.example': ['93.184.216.34', '10.0.0.7'] }) });
    const before = loopback.connections();
    try {
      const r = await outcome(`http://loopback.example:${loopback.port}/`, agent);
      expect(isPrivateTargetError(r)).toBe(true);
      expect((r as Error).message).toContain('loopback.example resolves to 127.0.0.1, a private address');
      expect(isPrivateTargetError(await outcome(`http://mixed.example:${loopback.port}/`, agent))).toBe(true);
    } finally {
      await agent.close();
    }
    expect(loopback.connections()).toBe(before);
  });

  it('checks the name again at every connection (DNS rebinding)', async () => {
    let calls = 0;
    const rebinding: Resolver = (_host, _opts, cb) => cb(null, [{ address: calls++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 }]);
    const agent = guardedAgent({ resolve: rebinding, exempt });
    try {
      expect(await outcome(`http://hooks.example:${publicStandIn.port}/first`, agent)).toBe(200);
      const second = await outcome(`http://hooks.example:${publicStandIn.port}/second`, agent);
      expect(isPrivateTargetError(second)).toBe(true);
    } finally {
      await agent.close();
    }
    expect(publicStandIn.paths).toContain('/first');
    expect(publicStandIn.paths).not.toContain('/second');
  });

  it('checks every redirect hop when the caller follows redirects', async () => {
    const agent = guardedAgent({ resolve: fixed({ 'public.example': ['127.0.0.2'] }), exempt });
    const following = agent.compose(interceptors.redirect({ maxRedirections: 3 }));
    try {
      const r = await outcome(`http://public.example:${publicStandIn.port}/hop`, following);
      expect(isPrivateTargetError(r)).toBe(true);
    } finally {
      await agent.close();
    }
    expect(publicStandIn.paths).toContain('/hop');
    expect(loopback.paths).not.toContain('/secret');
  });

  it('lets private targets through with the opt-in, still resolving names with its resolver', async () => {
    const agent = guardedAgent({ allowPrivate: true, resolve: fixed({ 'loopback.example': ['127.0.0.1'] }) });
    try {
      expect(await outcome(`http://127.0.0.1:${loopback.port}/ok`, agent)).toBe(200);
      expect(await outcome(`http://loopback.example:${loopback.port}/ok`, agent)).toBe(200);
      expect(await outcome(`http://2130706433:${loopback.port}/ok`, agent)).toBe(200);
    } finally {
      await agent.close();
    }
  });
});

describe('guardedLookup', () => {
  it('answers in the form asked for (one address or all) when every address is public', async () => {
    const lookup = guardedLookup({ resolve: fixed({ 'hooks.example': ['93.184.216.34', '2606:4700::1111'] }) });
    const all = await new Promise((resolve, reject) => lookup('hooks.example', { all: true }, (err, addr) => (err ? reject(err) : resolve(addr))));
    expect(all).toEqual([{ address: '93.184.216.34', family: 4 }, { address: '2606:4700::1111', family: 6 }]);
    const one = await new Promise((resolve, reject) => lookup('hooks.example', {}, (err, addr, family) => (err ? reject(err) : resolve([addr, family]))));
    expect(one).toEqual(['93.184.216.34', 4]);
    await expect(new Promise((resolve, reject) => lookup('nowhere.example', {}, (err, addr) => (err ? reject(err) : resolve(addr))))).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
