import { describe, expect, it } from 'vitest';
import type { Db, QueryResult } from '../../core/db/db.ts';
import { createLogger } from '../../core/logger.ts';
import type { UsageRecord } from './usage-record.ts';
import { arrayLiteral, UsageWriter } from './usage-writer.ts';

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
      return { rows: [], rowCount: keysOf(params[1]).length };
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

/** The elements of a text-array literal as the writer builds it for the key column ({"key_0","key_1"}). */
const keysOf = (literal: unknown) => (typeof literal === 'string' && literal !== '{}' ? literal.slice(2, -2).split('","') : []);

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
    expect(inserts[0].params[1]).toBe('{"key_0","key_1","key_2","key_3","key_4","key_5","key_6"}');
    expect(inserts[0].params[18]).toBe('{1,1,1,1,1,1,1}');
    expect(inserts[0].params[16]).toBe('{NULL,NULL,NULL,NULL,NULL,NULL,NULL}');
    expect(w.written).toBe(7);
  });

  it('flushes at once when a batch is full, and splits larger queues', async () => {
    const { db, inserts } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 10_000, batchSize: 3 });
    for (let i = 0; i < 7; i++) w.write(record(i));
    await w.drain();
    expect(inserts.map((x) => keysOf(x.params[1]).length)).toEqual([3, 3, 1]);
  });

  it('keeps rows through a failed write and writes them on drain', async () => {
    const { db, inserts, fail } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 5, batchSize: 10 });
    fail(1);
    for (let i = 0; i < 4; i++) w.write(record(i));
    await w.drain();
    expect(inserts.flatMap((x) => keysOf(x.params[1]))).toEqual(['key_0', 'key_1', 'key_2', 'key_3']);
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
    expect(inserts.flatMap((x) => keysOf(x.params[1]))).toEqual(['key_0', 'key_1', 'key_2', 'key_3', 'key_4', 'key_5', 'key_6', 'key_7']);
  });

  it('writes array literals Postgres reads back as the same values', () => {
    expect(arrayLiteral([1, 2.5, 1.2e-7, null, true, false])).toBe('{1,2.5,1.2e-7,NULL,t,f}');
    expect(arrayLiteral([new Date(Date.UTC(2026, 10, 22, 1, 2, 3, 4))])).toBe('{"2026-11-22T01:02:03.004Z"}');
    expect(arrayLiteral(['plain', 'a,b', '{x}', 'NULL', 'say "hi"', 'back\\slash', ''])).toBe('{"plain","a,b","{x}","NULL","say \\"hi\\"","back\\\\slash",""}');
    expect(arrayLiteral([])).toBe('{}');
  });
});
