/**
 * Which IP addresses and host names are not public internet targets: loopback, private, link-local (cloud metadata
 * at 169.254.169.254), shared (CGNAT), unspecified, multicast, broadcast, documentation and reserved ranges, and the
 * same ranges carried inside IPv6 (IPv4-mapped, IPv4-compatible, NAT64, 6to4). Pure classification, no I/O: the
 * connect-time guard (guarded-agent.ts) applies it to every address a name resolves to, and URL validation applies
 * it to the host as written. Ranges: RFC 6890 special-purpose registries (IANA), RFC 6761 for localhost.
 */
import { BlockList, isIP } from 'node:net';

const V4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network" (RFC 1122); 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, CGNAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. cloud metadata 169.254.169.254
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24], // documentation (TEST-NET-1/2/3)
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast 255.255.255.255
] as const) V4.addSubnet(net, prefix, 'ipv4');

const V6 = new BlockList();
for (const [net, prefix] of [
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard-only (RFC 6666)
  ['2001::', 23], // IETF protocol assignments, incl. Teredo 2001::/32 (its client address is obfuscated)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) V6.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad and a zone id allowed). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0].toLowerCase();
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const o = text.slice(lastColon + 1).split('.').map(Number);
    tail.push((o[0] << 8) | o[1], (o[2] << 8) | o[3]);
    text = text.slice(0, text.endsWith('::', lastColon + 1) ? lastColon + 1 : lastColon);
  }
  const halves = text.split('::');
  const groups = (h: string) => (h === '' ? [] : h.split(':').map((g) => parseInt(g, 16)));
  const head = groups(halves[0]);
  const rest = halves.length > 1 ? groups(halves[1]) : [];
  const zeros = new Array<number>(8 - head.length - rest.length - tail.length).fill(0);
  return [...head, ...zeros, ...rest, ...tail];
}

const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address carries and routes to, if any. */
export function embeddedIpv4(v6: string): string | null {
  const g = ipv6Groups(v6);
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  // ::a.b.c.d (IPv4-compatible, incl. :: and ::1), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT translated).
  if (zeroUpTo(6) || (zeroUpTo(5) && g[5] === 0xffff) || (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0)) return quad(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return quad(g[6], g[7]); // NAT64 (RFC 6052)
  if (g[0] === 0x2002) return quad(g[1], g[2]); // 6to4 (RFC 3056)
  return null;
}

/** Whether an IP address (v4 or v6, without brackets) is not a public unicast address. Names are not addresses: false. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return V4.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(address);
  if (v4) return V4.check(v4, 'ipv4');
  return V6.check(address.split('%')[0], 'ipv6');
}

/**
 * A host written as an IPv4 number the way inet_aton (and so getaddrinfo and the WHATWG URL parser) reads it:
 * 1 to 4 parts, each decimal, octal (leading 0) or hex (0x), the last part filling the remaining bytes, so
 * `2130706433`, `0177.0.0.1`, `0x7f.1` and `127.1` are all 127.0.0.1. Null when the host is not such a number.
 */
export function looseIpv4(host: string): string | null {
  const parts = host.replace(/\.$/, '').split('.');
  if (parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]*$/.test(p)) n = parseInt(p, 8);
    else if (/^[1-9][0-9]*$/.test(p)) n = Number(p);
    else return null;
    nums.push(n);
  }
  const last = nums.pop() as number;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  let value = last;
  nums.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/**
 * The literal check of a host as written (a URL's hostname, brackets allowed): an IP address in any spelling that
 * is not public, or `localhost` and `*.localhost` (RFC 6761). Other names are checked when they are resolved.
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host)) return isPrivateAddress(host);
  const v4 = looseIpv4(host);
  return v4 !== null && isPrivateAddress(v4);
}
