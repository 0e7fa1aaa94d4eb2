import { describe, expect, it } from 'vitest';
import type { Db, QueryResult } from '../../core/db/db.ts';
import { createLogger } from '../../core/logger.ts';
import type { UsageRecord } from './usage-record.ts';
import { UsageWriter } from './usage-writer.ts';

/** A Db that records INSERTs and can be made to fail. */
function fakeDb() {
  const inserts: { sql: string; params: unknown[] }[] = [];
  let failures = 0;
  const db = {
    kind: 'postgres',
    async query(sql: string, params: readonly unknown[] = []): Promise<QueryResult<never>> {
      if (failures > 0) {
        failures--;
        throw new Error('database down');
      }
      inserts.push({ sql, params: [...params] });
      return { rows: [], rowCount: (params[0] as unknown[] | undefined)?.length ?? 0 };
    },
  } as unknown as Db;
  return { db, inserts, fail: (n: number) => (failures = n) };
}

const record = (i: number): UsageRecord => ({
  at: new Date(0), keyId: `key_${i}`, teamId: 't', model: 'm', servedModel: 'm', alias: null, provider: 'openai', accountId: 'a',
  clientStyle: 'chat', upstreamStyle: 'chat', status: 200, errorCode: null, inputTokens: i, outputTokens: 1, cacheReadTokens: 0,
  cacheWriteTokens: 0, reasoningTokens: null, usageSource: 'reported', latencyMs: 1.4, ttfbMs: null, costUsd: 0, stream: false,
});

const log = createLogger('silent');

describe('the usage writer', () => {
  it('writes queued records with one INSERT of column arrays per batch', async () => {
    const { db, inserts } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 20, batchSize: 500 });
    for (let i = 0; i < 7; i++) w.write(record(i));
    expect(inserts).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(inserts).toHaveLength(1);
    expect(inserts[0].sql).toMatch(/^INSERT INTO usage_records \(at,key_id,.*\)\s+SELECT \* FROM unnest\(\$1::timestamptz\[\],.*\$22::bool\[\]\)$/);
    expect(inserts[0].params).toHaveLength(22);
    expect(inserts[0].params[1]).toEqual(['key_0', 'key_1', 'key_2', 'key_3', 'key_4', 'key_5', 'key_6']);
    expect(inserts[0].params[18]).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(w.written).toBe(7);
  });

  it('flushes at once when a batch is full, and splits larger queues', async () => {
    const { db, inserts } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 10_000, batchSize: 3 });
    for (let i = 0; i < 7; i++) w.write(record(i));
    await w.drain();
    expect(inserts.map((x) => (x.params[0] as unknown[]).length)).toEqual([3, 3, 1]);
  });

  it('keeps rows through a failed write and writes them on drain', async () => {
    const { db, inserts, fail } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 5, batchSize: 10 });
    fail(1);
    for (let i = 0; i < 4; i++) w.write(record(i));
    await w.drain();
    expect(inserts.flatMap((x) => x.params[1] as string[])).toEqual(['key_0', 'key_1', 'key_2', 'key_3']);
  });

  it('keeps every row past its bound and reports full until the backlog is written', async () => {
    const { db, inserts, fail } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 10_000, batchSize: 100, maxQueued: 5 });
    fail(0);
    for (let i = 0; i < 4; i++) w.write(record(i));
    expect(w.full).toBe(false);
    for (let i = 4; i < 8; i++) w.write(record(i));
    expect(w.queued).toBe(8);
    expect(w.full).toBe(true);
    await w.drain();
    expect(w.full).toBe(false);
    expect(inserts.flatMap((x) => x.params[1] as string[])).toEqual(['key_0', 'key_1', 'key_2', 'key_3', 'key_4', 'key_5', 'key_6', 'key_7']);
  });
});
