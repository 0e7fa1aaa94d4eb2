/** Counters in this process's memory: exact for one node, the embedded default when REDIS_URL is unset. */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Counters, HitResult, HitsResult } from './counters.ts';

interface Entry {
  value: string;
  expiresAt: number;
}

export class MemoryCounters implements Counters {
  readonly kind = 'memory' as const;
  #clock: Clock;
  #values = new Map<string, Entry>();
  #windows = new Map<string, { times: number[]; head: number }>();
  #subs = new Map<string, Set<(m: string) => void>>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  #read(key: string): string | null {
    const e = this.#values.get(key);
    if (!e) return null;
    if (e.expiresAt <= this.#clock.now()) {
      this.#values.delete(key);
      return null;
    }
    return e.value;
  }

  async time(): Promise<number> {
    return this.#clock.now();
  }

  async hit(key: string, limit: number, windowMs: number): Promise<HitResult> {
    const now = this.#clock.now();
    let w = this.#windows.get(key);
    if (!w) this.#windows.set(key, (w = { times: [], head: 0 }));
    // Hits are appended in time order: expired ones leave from the front (amortised O(1), even for large limits).
    while (w.head < w.times.length && w.times[w.head] <= now - windowMs) w.head++;
    if (w.head > 1024 && w.head * 2 > w.times.length) {
      w.times = w.times.slice(w.head);
      w.head = 0;
    }
    const count = w.times.length - w.head;
    if (count >= limit) return { allowed: false, count, retryAfterMs: Math.max(1, w.times[w.head] + windowMs - now) };
    w.times.push(Math.max(now, w.times[w.times.length - 1] ?? now));
    return { allowed: true, count: count + 1, retryAfterMs: 0 };
  }

  async hitMany(key: string, limit: number, windowMs: number, n: number): Promise<HitsResult> {
    let allowed = 0;
    let last: HitResult = { allowed: true, count: 0, retryAfterMs: 0 };
    for (let i = 0; i < n; i++) {
      last = await this.hit(key, limit, windowMs);
      if (!last.allowed) break;
      allowed += 1;
    }
    return { allowed, count: last.count, retryAfterMs: last.allowed ? 0 : last.retryAfterMs };
  }

  async incrBy(key: string, by: number, ttlMs?: number): Promise<number> {
    const current = Number(this.#read(key) ?? 0);
    const next = current + by;
    const prev = this.#values.get(key);
    const expiresAt = prev && prev.expiresAt > this.#clock.now() ? prev.expiresAt : ttlMs ? this.#clock.now() + ttlMs : Infinity;
    this.#values.set(key, { value: String(next), expiresAt });
    return next;
  }

  async get(key: string): Promise<number> {
    return Number(this.#read(key) ?? 0);
  }

  async setValue(key: string, value: string, ttlMs?: number, onlyIfAbsent = false): Promise<boolean> {
    if (onlyIfAbsent && this.#read(key) !== null) return false;
    this.#values.set(key, { value, expiresAt: ttlMs ? this.#clock.now() + ttlMs : Infinity });
    return true;
  }

  async getValue(key: string): Promise<string | null> {
    return this.#read(key);
  }

  async del(key: string): Promise<void> {
    this.#values.delete(key);
    this.#windows.delete(key);
  }

  async lock(key: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    const token = randomUUID();
    if (!(await this.setValue(key, token, ttlMs, true))) return null;
    return async () => {
      if (this.#read(key) === token) this.#values.delete(key);
    };
  }

  async publish(channel: string, message: string): Promise<void> {
    for (const h of this.#subs.get(channel) ?? []) queueMicrotask(() => h(message));
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    const set = this.#subs.get(channel) ?? new Set();
    set.add(handler);
    this.#subs.set(channel, set);
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    this.#subs.clear();
  }
}
