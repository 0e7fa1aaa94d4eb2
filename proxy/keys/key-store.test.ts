import { describe, expect, it } from 'vitest';
import { CacheBus } from '../../core/cache.ts';
import { GATEWAY_KEYS_CACHE } from '../../core/ai/cache-names.ts';
import type { AppContext } from '../../core/context.ts';
import { MemoryCounters } from '../../core/counters/memory-counters.ts';
import { systemClock } from '../../core/clock.ts';
import { hashSecret } from '../../core/ids.ts';
import { KeyStore } from './key-store.ts';

function setup() {
  const rows = new Map<string, Record<string, unknown>>();
  let queries = 0;
  const db = {
    async query(_sql: string, params: readonly unknown[]) {
      queries++;
      const row = rows.get(params[0] as string);
      return { rows: row ? [row] : [], rowCount: row ? 1 : 0 };
    },
  };
  const caches = new CacheBus(new MemoryCounters(systemClock));
  const ctx = { db, caches, clock: systemClock } as unknown as AppContext;
  const add = (secret: string, allowed: string[]) =>
    rows.set(hashSecret(secret), { id: `key_${secret}`, team_id: 't1', owner_user_id: null, name: secret, allowed_models: allowed, limits: {}, log_bodies: 'off' });
  return { store: new KeyStore(ctx), caches, add, rows, queries: () => queries };
}

describe('gateway key lookups', () => {
  it('finds a key by the hash of its secret once, then from the cache', async () => {
    const s = setup();
    s.add('sk-svc-a', []);
    expect((await s.store.find('sk-svc-a'))?.id).toBe('key_sk-svc-a');
    expect((await s.store.find('sk-svc-a'))?.teamId).toBe('t1');
    expect(s.queries()).toBe(1);
  });

  it('remembers unknown secrets briefly without evicting good keys, and forgets a key on invalidation', async () => {
    const s = setup();
    expect(await s.store.find('sk-svc-nope')).toBeUndefined();
    expect(await s.store.find('sk-svc-nope')).toBeUndefined();
    expect(s.queries()).toBe(1);
    s.add('sk-svc-b', []);
    await s.store.find('sk-svc-b');
    s.rows.delete(hashSecret('sk-svc-b'));
    expect(await s.store.find('sk-svc-b')).toBeDefined();
    await s.caches.invalidate(GATEWAY_KEYS_CACHE, hashSecret('sk-svc-b'));
    expect(await s.store.find('sk-svc-b')).toBeUndefined();
  });

  it('checks allowed models with * patterns; an empty list allows every model', async () => {
    const s = setup();
    s.add('sk-svc-c', ['claude-*', 'gpt-4o', 'fast']);
    s.add('sk-svc-d', []);
    const c = (await s.store.find('sk-svc-c'))!;
    expect(['claude-sonnet-4-6', 'gpt-4o', 'fast'].map((m) => c.allows(m))).toEqual([true, true, true]);
    expect(['gpt-4o-mini', 'Claude-x', 'gemini-2.5-pro'].map((m) => c.allows(m))).toEqual([false, false, false]);
    expect((await s.store.find('sk-svc-d'))!.allows('anything')).toBe(true);
  });
});
