import { createServer } from 'node:http';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { guardedLookup, isPrivateAddress, isPrivateHost } from './private-address.ts';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fd12:3456::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::10.0.0.1',
  ])('refuses %s', (ip) => expect(isPrivateAddress(ip)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('allows %s', (ip) => expect(isPrivateAddress(ip)).toBe(false));
});

describe('isPrivateHost', () => {
  it('checks IP literals (with IPv6 brackets) and localhost names, not other names', () => {
    expect(isPrivateHost('[::1]')).toBe(true);
    expect(isPrivateHost('LOCALHOST')).toBe(true);
    expect(isPrivateHost('db.localhost.')).toBe(true);
    expect(isPrivateHost('example.com')).toBe(false);
    expect(isPrivateHost('[2606:4700::1111]')).toBe(false);
  });
});

describe('guardedLookup', () => {
  it('fails when any resolved address is private (DNS rebinding) and passes public ones through', async () => {
    const fake = (addresses: { address: string; family: number }[]) => guardedLookup((_host, _opts, cb) => cb(null, addresses));
    const lookupAll = (fn: ReturnType<typeof guardedLookup>) =>
      new Promise<unknown>((resolve, reject) => fn('hooks.example', { all: true }, (err, addr) => (err ? reject(err) : resolve(addr))));
    await expect(lookupAll(fake([{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }]))).rejects.toThrow(/private address 10\.0\.0\.7/);
    await expect(lookupAll(fake([{ address: '93.184.216.34', family: 4 }]))).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('stops a real connection to a name that resolves to loopback', async () => {
    const server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const agent = new Agent({ connect: { lookup: guardedLookup((_h, _o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }])) } });
    try {
      await expect(request(`http://rebound.example:${port}/`, { dispatcher: agent })).rejects.toThrow(/private address 127\.0\.0\.1/);
    } finally {
      await agent.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
