/**
 * Shared counters, locks, small values and pub/sub: everything that must be exact across nodes. Two
 * implementations behave the same: Redis (REDIS_URL, atomic Lua scripts, Redis time) and in-memory (one node).
 */
export interface HitResult {
  allowed: boolean;
  /** Hits inside the window after this one (when allowed) or before it (when refused). */
  count: number;
  /** When refused: milliseconds until the oldest hit leaves the window. */
  retryAfterMs: number;
}

/** What hitMany recorded: the first `allowed` of the hits passed, the others were refused. */
export interface HitsResult {
  allowed: number;
  /** Hits inside the window after these. */
  count: number;
  /** When some were refused: milliseconds until the oldest hit leaves the window. */
  retryAfterMs: number;
}

export interface Counters {
  readonly kind: 'redis' | 'memory';
  /** Time in ms as every node sees it (Redis TIME), so that clock skew between nodes cannot split a window. */
  time(): Promise<number>;
  /** Sliding-window limiter: records a hit only when fewer than `limit` hits lie in the last `windowMs`. */
  hit(key: string, limit: number, windowMs: number): Promise<HitResult>;
  /** `n` hits at once, recorded as `n` calls of hit() one after the other would record them (one round trip). */
  hitMany(key: string, limit: number, windowMs: number, n: number): Promise<HitsResult>;
  incrBy(key: string, by: number, ttlMs?: number): Promise<number>;
  get(key: string): Promise<number>;
  /** Sets a value; with onlyIfAbsent, only when the key does not exist (returns whether it was set). */
  setValue(key: string, value: string, ttlMs?: number, onlyIfAbsent?: boolean): Promise<boolean>;
  getValue(key: string): Promise<string | null>;
  del(key: string): Promise<void>;
  /** A lock held for at most ttlMs; returns a release function, or null when someone else holds it. */
  lock(key: string, ttlMs: number): Promise<(() => Promise<void>) | null>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  /** Answers whether the backing store is reachable (health). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
