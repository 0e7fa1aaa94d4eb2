import { describe, expect, it } from 'vitest';
import { embeddedIpv4, isPrivateAddress, isPrivateHost, looseIpv4 } from './private-address.ts';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.254',
    '0.0.0.0', '0.1.2.3', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255', '192.0.2.10', '198.51.100.7', '203.0.113.9', '198.18.0.1',
    '::1', '::', 'fd12:3456::1', 'fc00::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1', 'fec0::1', '2001:db8::1', '2001:0:4136:e378::1', '100::1', '64:ff9b:1::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:0:10.0.0.1', '::127.0.0.1', '::a9fe:a9fe', '64:ff9b::10.0.0.1', '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::', '2002:a00:1::1', '2002:c0a8:101::1',
  ])('refuses %s', (ip) => expect(isPrivateAddress(ip)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2a00:1450::1'])(
    'allows %s',
    (ip) => expect(isPrivateAddress(ip)).toBe(false),
  );

  it('is false for names: they are checked once resolved', () => {
    expect(isPrivateAddress('example.com')).toBe(false);
  });
});

describe('embeddedIpv4', () => {
  it('reads the IPv4 address inside mapped, compatible, NAT64 and 6to4 addresses', () => {
    expect(embeddedIpv4('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('0:0:0:0:0:ffff:a00:1')).toBe('10.0.0.1');
    expect(embeddedIpv4('::1')).toBe('0.0.0.1');
    expect(embeddedIpv4('64:ff9b::c0a8:1')).toBe('192.168.0.1');
    expect(embeddedIpv4('2002:a9fe:a9fe::1')).toBe('169.254.169.254');
    expect(embeddedIpv4('2606:4700::1111')).toBeNull();
  });
});

describe('looseIpv4', () => {
  it.each([
    ['2130706433', '127.0.0.1'], ['0177.0.0.1', '127.0.0.1'], ['0x7f.1', '127.0.0.1'], ['0x7f000001', '127.0.0.1'], ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'], ['017700000001', '127.0.0.1'], ['0xA9.0xFE.0xA9.0xFE', '169.254.169.254'], ['10.0.0.1.', '10.0.0.1'], ['0', '0.0.0.0'],
  ])('reads %s as %s', (host, ip) => expect(looseIpv4(host)).toBe(ip));

  it.each(['example.com', '1.2.3.4.5', '256.1.1.1', '08.1.1.1', '4294967296', '1.2.65536', 'x1', ''])('is null for %s', (host) => expect(looseIpv4(host)).toBeNull());
});

describe('isPrivateHost', () => {
  it.each(['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '169.254.169.254', '10.0.0.1', '2130706433', '0177.0.0.1', '0x7f000001', '0x7f.1', '127.1', 'LOCALHOST', 'localhost.', 'db.localhost.', '[fe80::1]', '[2002:7f00:1::]'])(
    'refuses %s',
    (host) => expect(isPrivateHost(host)).toBe(true),
  );

  it.each(['example.com', 'hooks.example.com', '93.184.216.34', '[2606:4700::1111]', '1.1', 'localhost.example.com'])('leaves %s to the connect-time check', (host) => expect(isPrivateHost(host)).toBe(false));
});
