/**
 * Caches of data-plane lookups (gateway keys, accounts, projects, DSN keys). A change on any node publishes the
 * cache name (and the key, when one) on the shared bus; every node drops the entry within milliseconds. A short
 * TTL bounds staleness should a message ever be lost.
 *
 * When the bus itself is down (Redis restart), invalidations published meanwhile never arrive: the TTL bounds how
 * long a node may serve what they would have dropped, and a publish that fails is logged, not an error for the
 * change that caused it (the change is already committed). While the database does not answer, an entry past its
 * TTL is still served for a while (stale-if-error, at most STALE_MS) so known keys keep working through a database
 * restart.
 */
import type { Counters } from './counters/counters.ts';

const CHANNEL = 'cache-invalidate';
/** How long past its TTL an entry may be served when reloading it fails. */
export const STALE_MS = 10 * 60_000;

interface Slot<V> {
  value: V;
  expiresAt: number;
}

export class LookupCache<V> {
  readonly name: string;
  #ttlMs: number;
  #max: number;
  #map = new Map<string, Slot<V>>();
  #loading = new Map<string, Promise<V>>();

  constructor(name: string, ttlMs = 60_000, max = 50_000) {
    this.name = name;
    this.#ttlMs = ttlMs;
    this.#max = max;
  }

  /** The cached value when it is fresh, without loading: lets hot paths skip a promise on a hit. */
  peek(key: string): V | undefined {
    const hit = this.#map.get(key);
    return hit !== undefined && hit.expiresAt > Date.now() ? hit.value : undefined;
  }

  /** Returns the cached value or loads it once (concurrent misses share one load). */
  async get(key: string, load: (key: string) => Promise<V>): Promise<V> {
    const hit = this.#map.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const stale = hit && hit.expiresAt + STALE_MS > Date.now() ? hit : undefined;
    const p = load(key)
      .then((value) => {
        if (this.#loading.get(key) === p) {
          if (this.#map.size >= this.#max) this.#map.delete(this.#map.keys().next().value as string);
          this.#map.set(key, { value, expiresAt: Date.now() + this.#ttlMs });
        }
        return value;
      })
      .catch((err: unknown) => {
        // Stale-if-error: a recent value beats a refusal while the database restarts. It keeps its old expiry (the
        // next call tries the database again), and an invalidated entry is gone from the map, never served.
        if (stale && this.#map.get(key) === stale) return stale.value;
        throw err;
      })
      .finally(() => {
        if (this.#loading.get(key) === p) this.#loading.delete(key);
      });
    this.#loading.set(key, p);
    return p;
  }

  drop(key?: string): void {
    if (key === undefined) {
      this.#map.clear();
      this.#loading.clear();
    } else {
      this.#map.delete(key);
      this.#loading.delete(key);
    }
  }
}

/** The bus side: caches register by name; invalidate() reaches every node's cache of that name. */
export class CacheBus {
  #counters: Counters;
  #caches = new Map<string, LookupCache<unknown>[]>();
  #started = false;

  #log: ((err: unknown) => void) | undefined;

  constructor(counters: Counters, onPublishError?: (err: unknown) => void) {
    this.#counters = counters;
    this.#log = onPublishError;
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#counters.subscribe(CHANNEL, (msg) => {
      try {
        const { cache, key } = JSON.parse(msg) as { cache: string; key?: string };
        for (const c of this.#caches.get(cache) ?? []) c.drop(key);
      } catch {
        // A malformed message is ignored; the TTL still bounds staleness.
      }
    });
  }

  register<V>(cache: LookupCache<V>): LookupCache<V> {
    const list = this.#caches.get(cache.name) ?? [];
    list.push(cache as LookupCache<unknown>);
    this.#caches.set(cache.name, list);
    return cache;
  }

  /** Drops the entry locally at once, then tells every other node. */
  async invalidate(cache: string, key?: string): Promise<void> {
    for (const c of this.#caches.get(cache) ?? []) c.drop(key);
    try {
      await this.#counters.publish(CHANNEL, JSON.stringify({ cache, key }));
    } catch (err) {
      // Redis is down: the TTL bounds staleness on the other nodes; the change itself is already committed.
      this.#log?.(err);
    }
  }
}
