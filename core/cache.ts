/**
 * Caches of data-plane lookups (gateway keys, accounts, projects, DSN keys). A change on any node publishes the
 * cache name (and the key, when one) on the shared bus; every node drops the entry within milliseconds. A short
 * TTL bounds staleness should a message ever be lost.
 */
import type { Counters } from './counters/counters.ts';

const CHANNEL = 'cache-invalidate';

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
    const p = load(key)
      .then((value) => {
        if (this.#loading.get(key) === p) {
          if (this.#map.size >= this.#max) this.#map.delete(this.#map.keys().next().value as string);
          this.#map.set(key, { value, expiresAt: Date.now() + this.#ttlMs });
        }
        return value;
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

  constructor(counters: Counters) {
    this.#counters = counters;
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
    await this.#counters.publish(CHANNEL, JSON.stringify({ cache, key }));
  }
}
