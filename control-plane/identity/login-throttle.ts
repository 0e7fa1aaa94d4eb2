/**
 * Password-guessing throttle for the sign-in endpoints, on the shared counters so that every node behind a load
 * balancer sees the same counts. Failed sign-ins are counted per account and per client IP in a fixed window that
 * starts at the first attempt; past the limit, sign-in answers 429 too_many_sign_in_attempts with Retry-After
 * until that window ends, before any password is hashed (a refused guess costs no scrypt).
 *
 * Keys (under the counters' prefix): `signin:n:<subject>` holds the failure count and `signin:e:<subject>` the
 * window's end in ms (counters time); both expire with the window. A subject is `u:<user id>` for a known account
 * (its user name and e-mail share one count) or `x:<name as sent>` for an unknown one, which counts the same way.
 *
 * The counters failing (Redis down) lets sign-in through, logged: locking every administrator out is worse than
 * allowing guesses for a while.
 */
import type { Counters } from '../../core/counters/counters.ts';
import { svcError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';

export interface LoginThrottleLimits {
  maxPerUser: number;
  maxPerIp: number;
  windowS: number;
}

/** One sign-in attempt that passed the check: what `failed` and `succeeded` need to settle it. */
export interface SignInAttempt {
  user: string;
  ip: string;
  /** The counts with this attempt reserved; undefined when the counters failed (fail open: nothing to settle). */
  counts: { user: number; ip: number } | undefined;
}

const countKey = (subject: string) => `signin:n:${subject}`;
const endKey = (subject: string) => `signin:e:${subject}`;

export class LoginThrottle {
  #counters: Counters;
  #log: Logger;
  #limits: LoginThrottleLimits;

  constructor(counters: Counters, log: Logger, limits: LoginThrottleLimits) {
    this.#counters = counters;
    this.#log = log;
    this.#limits = limits;
  }

  /** The account key: the user's id when the name is known, else the name exactly as sign-in looked it up. */
  static account(userId: string | undefined, username: string): string {
    return userId ? `u:${userId}` : `x:${username}`;
  }

  /** The client address's key. */
  static address(ip: string): string {
    return `ip:${ip}`;
  }

  /**
   * Reserves one failure for the account and the address before the password is checked: counting first (an atomic
   * increment) means a burst of parallel guesses cannot all pass a check that none of them has counted yet. Past a
   * limit, the reservation is given back and too_many_sign_in_attempts (with Retry-After) is thrown.
   */
  async check(user: string, ip: string): Promise<SignInAttempt> {
    const c = this.#counters;
    const windowMs = this.#limits.windowS * 1000;
    const ipKey = LoginThrottle.address(ip);
    let counts: { user: number; ip: number };
    let waitMs = 0;
    try {
      const now = await c.time();
      // Issued together, in this order: on Redis one round trip (auto-pipelining). The first attempt of a window fixes
      // its end (NX); incrBy keeps the first TTL too.
      const r = await Promise.all([
        c.setValue(endKey(user), String(now + windowMs), windowMs, true), c.incrBy(countKey(user), 1, windowMs), c.getValue(endKey(user)),
        c.setValue(endKey(ipKey), String(now + windowMs), windowMs, true), c.incrBy(countKey(ipKey), 1, windowMs), c.getValue(endKey(ipKey)),
      ]);
      counts = { user: r[1], ip: r[4] };
      if (counts.user > this.#limits.maxPerUser) waitMs = Math.max(waitMs, remainingMs(r[2], now, windowMs));
      if (counts.ip > this.#limits.maxPerIp) waitMs = Math.max(waitMs, remainingMs(r[5], now, windowMs));
    } catch (e) {
      this.#log.warn({ err: e }, 'sign-in throttle: the counters cannot be used; letting the attempt through unthrottled');
      return { user, ip, counts: undefined };
    }
    if (waitMs > 0) {
      // A refused attempt costs nothing, so it does not count (nor lock out an address by hammering one account).
      await this.#giveBack({ user, ip, counts }, true).catch((e: unknown) => this.#log.warn({ err: e }, 'sign-in throttle: the counters cannot be written; a refused attempt stays counted'));
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw svcError('too_many_sign_in_attempts', `Too many failed sign-in attempts for this user name or from this address; try again in ${wait(seconds)}.`, { retry_after: seconds }, { 'Retry-After': String(seconds) });
    }
    return { user, ip, counts };
  }

  /** A wrong password (or an unknown user name): the reserved failure stays; a limit just reached is logged once. */
  async failed(a: SignInAttempt): Promise<void> {
    if (!a.counts) return;
    // The account key and the address, never the password.
    if (a.counts.user === this.#limits.maxPerUser) this.#log.warn({ account: a.user, ip: a.ip, failures: a.counts.user, window_s: this.#limits.windowS }, 'sign-in throttle: too many failed sign-ins for one account; refusing it until the window ends');
    if (a.counts.ip === this.#limits.maxPerIp) this.#log.warn({ ip: a.ip, failures: a.counts.ip, window_s: this.#limits.windowS }, 'sign-in throttle: too many failed sign-ins from one address; refusing it until the window ends');
  }

  /** A successful sign-in clears the account's count and gives the address its reservation back (no more). */
  async succeeded(a: SignInAttempt): Promise<void> {
    if (!a.counts) return;
    try {
      await Promise.all([this.clear(a.user), this.#giveBack(a, false)]);
    } catch (e) {
      this.#log.warn({ err: e }, 'sign-in throttle: the counters cannot be written; the account count is not cleared');
    }
  }

  /** Forgets the failures of an account (`account(...)`) or of a client address (`address(...)`). */
  async clear(subject: string): Promise<void> {
    await Promise.all([this.#counters.del(countKey(subject)), this.#counters.del(endKey(subject))]);
  }

  async #giveBack(a: SignInAttempt, account: boolean): Promise<void> {
    const windowMs = this.#limits.windowS * 1000;
    const ip = this.#counters.incrBy(countKey(LoginThrottle.address(a.ip)), -1, windowMs);
    await Promise.all([ip, account ? this.#counters.incrBy(countKey(a.user), -1, windowMs) : undefined]);
  }
}

/** Time left in a window from its stored end; a missing end (it expired a moment before the count) means all of it. */
function remainingMs(end: string | null, now: number, windowMs: number): number {
  const left = Number(end) - now;
  return end !== null && Number.isFinite(left) ? Math.max(1, left) : windowMs;
}

/** "14 minutes", "1 minute", "45 seconds": the wait in words for the refusal sentence. */
function wait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
