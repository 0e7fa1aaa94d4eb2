import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createApp } from './create-app.ts';

async function ipSeen(trustProxy: boolean | string, remoteAddress: string): Promise<string> {
  const app = createApp({ log: createLogger('silent'), bodyLimit: 1024, trustProxy });
  app.get('/ip', async (req) => ({ ip: req.ip }));
  const res = await app.inject({ method: 'GET', url: '/ip', remoteAddress, headers: { 'x-forwarded-for': '203.0.113.9' } });
  await app.close();
  return res.json().ip as string;
}

describe('which peers may name the client (SVC_TRUST_PROXY)', () => {
  it('believes X-Forwarded-For from this machine or a private network by default, not from anyone else', async () => {
    const trust = loadConfig({}).trustProxy;
    expect(await ipSeen(trust, '127.0.0.1')).toBe('203.0.113.9');
    expect(await ipSeen(trust, '10.1.2.3')).toBe('203.0.113.9');
    expect(await ipSeen(trust, '192.168.7.7')).toBe('203.0.113.9');
    expect(await ipSeen(trust, '198.51.100.7')).toBe('198.51.100.7');
  });

  it('takes true, false or a list of addresses, and refuses anything else', async () => {
    expect(await ipSeen(loadConfig({ SVC_TRUST_PROXY: 'true' }).trustProxy, '198.51.100.7')).toBe('203.0.113.9');
    expect(await ipSeen(loadConfig({ SVC_TRUST_PROXY: 'false' }).trustProxy, '127.0.0.1')).toBe('127.0.0.1');
    const list = loadConfig({ SVC_TRUST_PROXY: '198.51.100.0/24, 127.0.0.1' }).trustProxy;
    expect(await ipSeen(list, '198.51.100.7')).toBe('203.0.113.9');
    expect(await ipSeen(list, '10.1.2.3')).toBe('10.1.2.3');
    expect(() => loadConfig({ SVC_TRUST_PROXY: 'everyone!' })).toThrow(ConfigError);
  });
});
