/**
 * An undici Agent for outbound calls whose target a user chooses (webhooks today; OIDC discovery and JWKS, family
 * link peers): it refuses private targets when the connection is made, not only when the URL is saved.
 *   - An IP literal host, in any spelling the URL parser or getaddrinfo accepts, and `localhost`/`*.localhost`,
 *     are refused before any socket is opened.
 *   - A name is resolved by the guard's own lookup; if any address is private the connection fails, and otherwise
 *     the socket connects to exactly the addresses that were checked, so a name re-pointed at an internal address
 *     after it was validated (DNS rebinding) is refused too.
 * The check sits in the connector, under every request made through the agent: a caller that follows redirects
 * (undici's redirect interceptor, or by hand) has every hop checked by the same guard.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { isPrivateAddress, isPrivateHost } from './private-address.ts';

/** Resolves every address of a host name (dns.lookup with `all: true`); injectable so tests need no DNS. */
export type Resolver = (hostname: string, options: LookupAllOptions, cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface GuardOptions {
  /** Let private targets through (the operator's opt-in); names are still resolved by `resolve`. */
  allowPrivate?: boolean;
  /** The setting that allows private targets, named in refusals so an operator knows what to change. */
  optIn?: string;
  resolve?: Resolver;
  /** Addresses treated as public although they are not (a test's stand-in for an internet server). */
  exempt?: (address: string) => boolean;
}

export const PRIVATE_TARGET = 'ERR_PRIVATE_TARGET';

/** The refusal raised inside the connector; undici passes it through as the request's error (or its cause). */
export class PrivateTargetError extends Error {
  readonly code = PRIVATE_TARGET;
}

export function isPrivateTargetError(err: unknown): err is PrivateTargetError {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code === PRIVATE_TARGET || e?.cause?.code === PRIVATE_TARGET;
}

function refusal(host: string, address: string | null, opts: GuardOptions): PrivateTargetError {
  const what = address ? `${host} resolves to ${address}, a private address` : `${host} is a private address`;
  return new PrivateTargetError(`${what}, which this instance does not allow${opts.optIn ? ` (${opts.optIn})` : ''}.`);
}

/** A `lookup` for net/tls connect that resolves every address and fails when any of them is private. */
export function guardedLookup(opts: GuardOptions = {}): LookupFunction {
  const resolve = opts.resolve ?? dnsLookup;
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address.`), { code: 'ENOTFOUND' }), '', 4);
      const bad = opts.allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address) && !opts.exempt?.(a.address));
      if (bad) return callback(refusal(hostname, bad.address, opts), '', 4);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** An undici connector that applies the guard: literal hosts first, then every resolved address. */
export function guardedConnector(opts: GuardOptions & { timeoutMs?: number } = {}): buildConnector.connector {
  const connect = buildConnector({ timeout: opts.timeoutMs, lookup: guardedLookup(opts) });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!opts.allowPrivate && isPrivateHost(host) && !opts.exempt?.(host)) return callback(refusal(host, null, opts), null);
    connect(options, callback);
  };
}

/** An Agent whose every connection goes through the guard; other Agent options (timeouts, pool size) pass through. */
export function guardedAgent(opts: GuardOptions & { connectTimeoutMs?: number; agent?: Omit<Agent.Options, 'connect'> } = {}): Agent {
  return new Agent({ ...opts.agent, connect: guardedConnector({ ...opts, timeoutMs: opts.connectTimeoutMs }) });
}
