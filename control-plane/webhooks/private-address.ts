/**
 * Private, loopback, link-local and other non-public addresses, refused as webhook targets unless the instance
 * allows them (SVC_ALLOW_PRIVATE_WEBHOOKS; docs/webhooks.md). Two checks: the literal host of the URL (at creation
 * and at delivery), and every address the host name resolves to, at connect time, through `guardedLookup`, so a
 * name that is re-pointed at an internal address after creation (DNS rebinding) is refused too: the socket
 * connects to exactly the addresses that were checked.
 */
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';

const BLOCKED = new BlockList();
// IPv4: RFC 1122 "this network", RFC 1918 private, RFC 6598 shared (CGNAT), loopback, link-local, IETF protocol
// assignments, benchmarking (RFC 2544), multicast, reserved and broadcast.
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv4');
// IPv6: unspecified, loopback, unique local (fc00::/7), link-local (fe80::/10), site-local (deprecated), multicast.
BLOCKED.addAddress('::', 'ipv6');
BLOCKED.addAddress('::1', 'ipv6');
for (const [net, prefix] of [['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8]] as const) BLOCKED.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address carried inside an IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(v6: string): string | null {
  const m = /^(?:::ffff:(?:0:)?|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(v6);
  if (m) return m[1];
  const hex = /^(?:::ffff:(?:0:)?|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(v6);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether an IP address (v4 or v6, no brackets) is not a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return BLOCKED.check(v4, 'ipv4');
    return BLOCKED.check(address, 'ipv6');
  }
  return false;
}

/** The literal check of a URL's host name: an IP literal in a private range, or localhost (RFC 6761). */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isPrivateAddress(host);
}

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

type Resolver = (hostname: string, options: LookupAllOptions, cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A `lookup` for net.connect / tls.connect (undici's `connect` options) that resolves every address of the host and
 * fails when any of them is private. `resolve` is injectable for tests.
 */
export function guardedLookup(resolve: Resolver = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const bad = addresses.find((a) => isPrivateAddress(a.address));
      if (bad) return callback(new PrivateAddressError(`${hostname} resolves to the private address ${bad.address}, which this instance does not allow for webhooks.`), '', 4);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
