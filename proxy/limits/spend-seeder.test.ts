import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import type { Db } from '../../core/db/db.ts';
import type { LimitSubject } from '../../core/limits/limit-store.ts';
import { MemoryLimitStore } from '../../core/limits/memory-limit-store.ts';
import { createLogger } from '../../core/logger.ts';
import { SpendSeeder } from './spend-seeder.ts';

function fakeDb(rows: { tokens: number; dollars: number }) {
  const db = { queries: 0, fail: false, query: async () => {
    db.queries++;
    if (db.fail) throw new Error('db down');
    return { rows: [rows] };
  } };
  return db;
}

const subject = (over: Partial<LimitSubject> = {}): LimitSubject => ({ keyId: 'k1', teamId: 't1', month: '2026-11', key: { tokensPerMonth: 1000 }, ...over });

describe('SpendSeeder', () => {
  it('raises the store to the records once per key and month, and again after the key was unmetered or its limits changed', async () => {
    const db = fakeDb({ tokens: 400, dollars: 2 });
    const store = new MemoryLimitStore(new ManualClock());
    const seeder = new SpendSeeder(db as unknown as Db, store, createLogger('silent'));
    await seeder.ensure(subject(), 'a');
    await seeder.ensure(subject(), 'a');
    expect(db.queries).toBe(1);
    expect(await store.spend('k1', 't1', '2026-11')).toMatchObject({ keyTokens: 400, keyDollars: 2 });
    await seeder.ensure(subject({ month: '2026-12' }), 'a');
    expect(db.queries).toBe(2);
    await seeder.ensure(subject(), 'b');
    expect(db.queries).toBe(3);
    seeder.forget('k1', 't1', false);
    await seeder.ensure(subject(), 'b');
    expect(db.queries).toBe(4);
  });

  it('seeds the team total when the team has ai.tokens', async () => {
    const db = fakeDb({ tokens: 900, dollars: 0 });
    const store = new MemoryLimitStore(new ManualClock());
    const seeder = new SpendSeeder(db as unknown as Db, store, createLogger('silent'));
    await seeder.ensure(subject({ teamTokensPerMonth: 5000 }), 'a');
    expect(db.queries).toBe(2);
    expect((await store.spend('k1', 't1', '2026-11')).teamTokens).toBe(900);
  });

  it('does not refuse when the database cannot be read, and tries again next time', async () => {
    const db = fakeDb({ tokens: 1, dollars: 0 });
    db.fail = true;
    const seeder = new SpendSeeder(db as unknown as Db, new MemoryLimitStore(new ManualClock()), createLogger('silent'));
    await expect(seeder.ensure(subject(), 'a')).rejects.toThrow('seed skipped');
    db.fail = false;
    await seeder.ensure(subject(), 'a');
    expect(db.queries).toBe(2);
  });

  it('seeds again on the next call once the store may have lost writes (a Redis connection was lost)', async () => {
    const db = fakeDb({ tokens: 400, dollars: 2 });
    const store = new MemoryLimitStore(new ManualClock());
    let losses = 0;
    store.lossCount = () => losses;
    const seeder = new SpendSeeder(db as unknown as Db, store, createLogger('silent'));
    await seeder.ensure(subject({ teamTokensPerMonth: 5000 }), 'a');
    expect(seeder.ensure(subject({ teamTokensPerMonth: 5000 }), 'a')).toBeUndefined();
    expect(db.queries).toBe(2);
    losses++;
    await seeder.ensure(subject({ teamTokensPerMonth: 5000 }), 'a');
    expect(db.queries).toBe(4);
    expect(seeder.ensure(subject({ teamTokensPerMonth: 5000 }), 'a')).toBeUndefined();
  });
});
