/**
 * A stable, non-reversible identity for counting the people an issue affects: the user's id, else e-mail,
 * else username, else IP address (the first present), hashed. The kind is part of the hash, so an id "42" and
 * a username "42" are different people; e-mail addresses are compared case-insensitively.
 *
 * Pass a per-project salt so that the same person has unrelated hashes in different projects.
 */
import { hash } from 'node:crypto';
import type { EventUser } from './event-types.ts';

export interface PeopleHashOptions {
  /** The connection IP, used last (NormalizedEvent.autoIp, when the SDK asked for it). */
  ip?: string;
  salt?: string;
}

/** 32 lowercase hex characters, or undefined when the event identifies no one. */
export function peopleHash(user: EventUser | undefined, options: PeopleHashOptions = {}): string | undefined {
  const identity = identityOf(user, options.ip);
  if (identity === undefined) return undefined;
  return hash('sha256', `${options.salt ?? ''}\u0000${identity}`, 'hex').slice(0, 32);
}

function identityOf(user: EventUser | undefined, ip: string | undefined): string | undefined {
  const pick = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
  const id = pick(user?.id);
  if (id !== undefined) return `id:${id}`;
  const email = pick(user?.email);
  if (email !== undefined) return `email:${email.toLowerCase()}`;
  const username = pick(user?.username);
  if (username !== undefined) return `username:${username}`;
  const address = pick(user?.ip_address) ?? pick(ip);
  if (address !== undefined) return `ip:${address.toLowerCase()}`;
  return undefined;
}
