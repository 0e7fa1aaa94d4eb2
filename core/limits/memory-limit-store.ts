/** Limits in this process's memory: the single-node default, with the same semantics as the Redis store. */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { BucketWindow, type WindowShape } from './bucket-window.ts';
import { DAY_WINDOW, DEFAULT_RESERVATION_TTL_MS, MINUTE_WINDOW, type Amount, type Exchanged, type KeyLimits, type LimitStore, type LimitSubject, type RequestCounts, type Reservation, type ReserveResult, type Settlement, type Spend, type Totals } from './limit-store.ts';

interface Month {
  tokens: number;
  dollars: number;
  inTokens: number;
  inDollars: number;
}

interface Held {
  keyMonth: string;
  teamMonth: string;
  tokens: number;
  dollars: number;
  expiresAt: number;
}

export class MemoryLimitStore implements LimitStore {
  #clock: Clock;
  #windows = new Map<string, BucketWindow>();
  #months = new Map<string, Month>();
  #reservations = new Map<string, Held>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  #month(id: string): Month {
    let m = this.#months.get(id);
    if (!m) this.#months.set(id, (m = { tokens: 0, dollars: 0, inTokens: 0, inDollars: 0 }));
    return m;
  }

  #expire(now: number): void {
    for (const [id, r] of this.#reservations) if (r.expiresAt <= now) this.#release(id, r);
  }

  #release(id: string, r: Held): void {
    this.#reservations.delete(id);
    const k = this.#month(r.keyMonth);
    k.inTokens -= r.tokens;
    k.inDollars -= r.dollars;
    this.#month(r.teamMonth).inTokens -= r.tokens;
  }

  #window(id: string, shape: WindowShape): BucketWindow {
    let w = this.#windows.get(id);
    if (!w) this.#windows.set(id, (w = new BucketWindow(shape)));
    return w;
  }

  async reserve(s: LimitSubject, est: Amount, ttlMs = DEFAULT_RESERVATION_TTL_MS): Promise<ReserveResult> {
    const now = this.#clock.now();
    this.#expire(now);
    // As on Redis: a key with a request limit keeps the minute's window, and the day's with requests_per_day.
    const counted = s.key.requestsPerMinute !== undefined || s.key.requestsPerDay !== undefined;
    const minute = counted ? this.#window(`${s.keyId}:minute`, MINUTE_WINDOW) : undefined;
    const day = s.key.requestsPerDay !== undefined ? this.#window(`${s.keyId}:day`, DAY_WINDOW) : undefined;
    if (minute && s.key.requestsPerMinute !== undefined && minute.count(now) >= s.key.requestsPerMinute) {
      return { ok: false, code: 'key_requests_per_minute', limit: s.key.requestsPerMinute, used: minute.count(now), retryAfterMs: minute.retryAfterMs(now) };
    }
    if (day && s.key.requestsPerDay !== undefined && day.count(now) >= s.key.requestsPerDay) {
      return { ok: false, code: 'key_requests_per_day', limit: s.key.requestsPerDay, used: day.count(now), retryAfterMs: day.retryAfterMs(now) };
    }
    const km = this.#month(`${s.keyId}:${s.month}`);
    const tm = this.#month(`team:${s.teamId}:${s.month}`);
    if (s.key.tokensPerMonth !== undefined && km.tokens + km.inTokens + est.tokens > s.key.tokensPerMonth) {
      return { ok: false, code: 'key_tokens_per_month', limit: s.key.tokensPerMonth, used: km.tokens, retryAfterMs: 0 };
    }
    if (s.key.dollarsPerMonth !== undefined && km.dollars + km.inDollars + est.dollars > s.key.dollarsPerMonth) {
      return { ok: false, code: 'key_dollars_per_month', limit: s.key.dollarsPerMonth, used: km.dollars, retryAfterMs: 0 };
    }
    if (s.teamTokensPerMonth !== undefined && tm.tokens + tm.inTokens + est.tokens > s.teamTokensPerMonth) {
      return { ok: false, code: 'team_ai_tokens', limit: s.teamTokensPerMonth, used: tm.tokens, retryAfterMs: 0 };
    }
    minute?.add(now);
    day?.add(now);
    const id = randomUUID();
    km.inTokens += est.tokens;
    km.inDollars += est.dollars;
    tm.inTokens += est.tokens;
    this.#reservations.set(id, { keyMonth: `${s.keyId}:${s.month}`, teamMonth: `team:${s.teamId}:${s.month}`, tokens: est.tokens, dollars: est.dollars, expiresAt: now + ttlMs });
    return { ok: true, reservationId: id };
  }

  async reserveMany(items: readonly Reservation[], ttlMs = DEFAULT_RESERVATION_TTL_MS): Promise<ReserveResult[]> {
    const out: ReserveResult[] = [];
    for (const it of items) out.push(await this.reserve(it.subject, it.estimate, ttlMs));
    return out;
  }

  async settle(s: LimitSubject, reservationId: string, actual: Amount): Promise<Totals> {
    const r = this.#reservations.get(reservationId);
    if (r) this.#release(reservationId, r);
    const km = this.#month(`${s.keyId}:${s.month}`);
    const tm = this.#month(`team:${s.teamId}:${s.month}`);
    km.tokens += actual.tokens;
    km.dollars += actual.dollars;
    tm.tokens += actual.tokens;
    return { keyTokens: km.tokens, keyDollars: km.dollars, teamTokens: tm.tokens };
  }

  async settleMany(items: readonly Settlement[]): Promise<Totals[]> {
    const out: Totals[] = [];
    for (const it of items) out.push(await this.settle(it.subject, it.reservationId, it.actual));
    // As on Redis: the team total is the one after the whole batch.
    return out.map((t, i) => ({ ...t, teamTokens: this.#month(`team:${items[i].subject.teamId}:${items[i].subject.month}`).tokens }));
  }

  async exchange(settlements: readonly Settlement[], reservations: readonly Reservation[], ttlMs = DEFAULT_RESERVATION_TTL_MS): Promise<Exchanged> {
    const totals = await this.settleMany(settlements);
    return { totals, results: await this.reserveMany(reservations, ttlMs) };
  }

  async ready(): Promise<boolean> {
    return true;
  }

  lossCount(): number {
    return 0;
  }

  async seed(s: Pick<LimitSubject, 'keyId' | 'teamId' | 'month'>, key: Amount, teamTokens: number): Promise<void> {
    const km = this.#month(`${s.keyId}:${s.month}`);
    const tm = this.#month(`team:${s.teamId}:${s.month}`);
    km.tokens = Math.max(km.tokens, key.tokens);
    km.dollars = Math.max(km.dollars, key.dollars);
    tm.tokens = Math.max(tm.tokens, teamTokens);
  }

  async spend(keyId: string, teamId: string, month: string): Promise<Spend> {
    this.#expire(this.#clock.now());
    const km = this.#month(`${keyId}:${month}`);
    const tm = this.#month(`team:${teamId}:${month}`);
    return { keyTokens: km.tokens, keyDollars: km.dollars, teamTokens: tm.tokens, keyTokensInFlight: km.inTokens, keyDollarsInFlight: km.inDollars };
  }

  async requests(keyId: string, _teamId: string, key: KeyLimits): Promise<RequestCounts> {
    if (key.requestsPerMinute === undefined && key.requestsPerDay === undefined) return { lastMinute: null, lastDay: null };
    const now = this.#clock.now();
    const count = (id: string) => this.#windows.get(id)?.count(now) ?? 0;
    return { lastMinute: count(`${keyId}:minute`), lastDay: key.requestsPerDay !== undefined ? count(`${keyId}:day`) : null };
  }
}
