/**
 * Account cooldowns shared by every proxy node: after a 429 (until Retry-After or the plan's reset, else exponential
 * from 1 s to 30 min), a 5xx or timeout (60 s; 529 overloaded: 3 min), an account sits out for a while. The truth is
 * in the shared counters (`acct-cool:<account>`, expiring with the cooldown); every change is also published, and
 * each node mirrors it in memory so that choosing an account costs no round trip. A node reads an account's
 * cooldown from the counters once, the first time it sees the account, and relies on the messages afterwards.
 */
import type { Clock } from '../../clock.ts';
import type { Counters } from '../../counters/counters.ts';

export type CooldownReason = 'rate_limited' | 'quota' | 'server_error' | 'overloaded' | 'unreachable';

export interface Cooldown {
  /** Unix ms. */
  until: number;
  reason: CooldownReason;
}

const CHANNEL = 'account-cooldown';
const key = (id: string) => `acct-cool:${id}`;
const strikesKey = (id: string) => `acct-429:${id}`;

/** Exponential 429 backoff when the provider names no time: 1 s, 2 s, 4 s, … up to 30 min. */
export function rateLimitBackoffMs(strikes: number): number {
  return Math.min(30 * 60_000, 1000 * 2 ** Math.max(0, Math.min(strikes - 1, 20)));
}

function parse(raw: string | null): Cooldown | undefined {
  if (!raw) return undefined;
  try {
    const c = JSON.parse(raw) as Cooldown;
    return typeof c.until === 'number' && typeof c.reason === 'string' ? c : undefined;
  } catch {
    return undefined;
  }
}

export class CooldownBoard {
  #counters: Counters;
  #clock: Clock;
  #local = new Map<string, Cooldown>();
  #known = new Set<string>();
  #struck = new Set<string>();
  #started: Promise<void> | undefined;

  constructor(counters: Counters, clock: Clock) {
    this.#counters = counters;
    this.#clock = clock;
  }

  /** Subscribes to other nodes' changes (once). */
  start(): Promise<void> {
    this.#started ??= this.#counters.subscribe(CHANNEL, (msg) => {
      try {
        const { id, cooldown } = JSON.parse(msg) as { id: string; cooldown: Cooldown | null };
        if (cooldown) this.#local.set(id, cooldown);
        else this.#local.delete(id);
        this.#known.add(id);
      } catch {
        // A malformed message is ignored; the stored value still expires.
      }
    });
    return this.#started;
  }

  /**
   * Reads the cooldowns of accounts this node has not seen yet; undefined (no promise) when it has seen them all,
   * as on every call but an account's first.
   */
  prime(accounts: readonly { id: string }[]): Promise<void> | undefined {
    let unknown: string[] | undefined;
    for (const a of accounts) if (!this.#known.has(a.id)) (unknown ??= []).push(a.id);
    return unknown === undefined ? undefined : this.#read(unknown);
  }

  async #read(unknown: string[]): Promise<void> {
    await this.start();
    const values = await Promise.all(unknown.map((id) => this.#counters.getValue(key(id)).catch(() => null)));
    unknown.forEach((id, i) => {
      const c = parse(values[i]);
      if (c && !this.#local.has(id)) this.#local.set(id, c);
      this.#known.add(id);
    });
  }

  /** The account's cooldown while it lasts. */
  get(id: string): Cooldown | undefined {
    const c = this.#local.get(id);
    if (c === undefined) return undefined;
    if (c.until > this.#clock.now()) return c;
    this.#local.delete(id);
    return undefined;
  }

  async set(id: string, cooldown: Cooldown): Promise<void> {
    const current = this.get(id);
    if (current && current.until >= cooldown.until) return;
    this.#local.set(id, cooldown);
    this.#known.add(id);
    const ttl = Math.max(1000, cooldown.until - this.#clock.now());
    await this.#counters.setValue(key(id), JSON.stringify(cooldown), ttl);
    await this.#counters.publish(CHANNEL, JSON.stringify({ id, cooldown }));
  }

  async clear(id: string): Promise<void> {
    if (!this.#local.delete(id)) return;
    await this.#counters.del(key(id));
    await this.#counters.publish(CHANNEL, JSON.stringify({ id, cooldown: null }));
  }

  /** Counts one more 429 in a row (for the exponential backoff); the count lasts an hour. */
  async strike(id: string): Promise<number> {
    this.#struck.add(id);
    return this.#counters.incrBy(strikesKey(id), 1, 3_600_000);
  }

  /** Whether this node counted a 429 of the account that no success has ended yet. */
  struck(id: string): boolean {
    return this.#struck.has(id);
  }

  /** A success ends the run of 429s (a write only when this node counted one). */
  async forgive(id: string): Promise<void> {
    if (!this.#struck.delete(id)) return;
    await this.#counters.del(strikesKey(id));
  }
}

/** One account's cooldown straight from the counters (for views; proxy nodes use a CooldownBoard). */
export async function readCooldown(counters: Counters, id: string, now: number): Promise<Cooldown | undefined> {
  const c = parse(await counters.getValue(key(id)));
  return c && c.until > now ? c : undefined;
}
