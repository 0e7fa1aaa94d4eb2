import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, QueryResult } from '../../core/db/db.ts';
import { migrate } from '../../core/db/migrate.ts';
import { createLogger } from '../../core/logger.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-db.ts';
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
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      }
      inserts.push({ sql, params: [...params] });
      return { rows: [], rowCount: keysOf(params[2]).length };
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

/** The elements of a text-array literal as the writer builds it for the key column ({"key_0","key_1"}, parameter 2). */
const keysOf = (literal: unknown) => (typeof literal === 'string' && literal !== '{}' ? literal.slice(2, -2).split('","') : []);

describe('the usage writer', () => {
  it('writes queued records with one INSERT of column arrays per batch', async () => {
    const { db, inserts } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 20, batchSize: 500 });
    for (let i = 0; i < 7; i++) {
      // Compression: `on` with its tokens before and after, `audit-only` without, none (off).
      const compression = i === 1 ? { mode: 'on' as const, tokensBefore: 40_000, tokensAfter: 12_000 } : i === 2 ? { mode: 'audit-only' as const } : undefined;
      void w.write({ ...record(i), ...(compression ? { compression } : {}) });
    }
    expect(inserts).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(inserts).toHaveLength(1);
    expect(inserts[0].sql).toMatch(/^INSERT INTO usage_records \(record_id,at,key_id,.*\)\s+SELECT \* FROM unnest\(\$1::uuid\[\],\$2::timestamptz\[\],.*\)\s+ON CONFLICT \(record_id[^)]*\) DO NOTHING$/);
    const columns = /^INSERT INTO usage_records \(([^)]*)\)/.exec(inserts[0].sql)![1].split(',');
    const column = (name: string) => inserts[0].params[columns.indexOf(name)];
    expect(inserts[0].params).toHaveLength(columns.length);
    expect(inserts[0].params[2]).toBe('{"key_0","key_1","key_2","key_3","key_4","key_5","key_6"}');
    expect(inserts[0].params[19]).toBe('{1,1,1,1,1,1,1}');
    expect(inserts[0].params[17]).toBe('{NULL,NULL,NULL,NULL,NULL,NULL,NULL}');
    expect(['compression_mode', 'compression_tokens_before', 'compression_tokens_after'].map(column)).toEqual([
      '{NULL,"on","audit-only",NULL,NULL,NULL,NULL}', '{NULL,40000,NULL,NULL,NULL,NULL,NULL}', '{NULL,12000,NULL,NULL,NULL,NULL,NULL}',
    ]);
    expect(new Set(keysOf(inserts[0].params[0])).size).toBe(7);
    expect(w.written).toBe(7);
  });

  it('flushes at once when a batch is full, and splits larger queues', async () => {
    const { db, inserts } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 10_000, batchSize: 3 });
    for (let i = 0; i < 7; i++) void w.write(record(i));
    await w.drain();
    expect(inserts.map((x) => keysOf(x.params[2]).length)).toEqual([3, 3, 1]);
  });

  it('keeps rows through a failed write and writes them on drain', async () => {
    const { db, inserts, fail } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 5, batchSize: 10 });
    fail(1);
    for (let i = 0; i < 4; i++) void w.write(record(i));
    await w.drain();
    expect(inserts.flatMap((x) => keysOf(x.params[2]))).toEqual(['key_0', 'key_1', 'key_2', 'key_3']);
  });

  it('keeps every row past its bound and reports full until the backlog is written', async () => {
    const { db, inserts, fail } = fakeDb();
    const w = new UsageWriter(db, log, { flushMs: 10_000, batchSize: 100, maxQueued: 5 });
    fail(0);
    for (let i = 0; i < 4; i++) void w.write(record(i));
    expect(w.full).toBe(false);
    for (let i = 4; i < 8; i++) void w.write(record(i));
    expect(w.queued).toBe(8);
    expect(w.full).toBe(true);
    await w.drain();
    expect(w.full).toBe(false);
    expect(inserts.flatMap((x) => keysOf(x.params[2]))).toEqual(['key_0', 'key_1', 'key_2', 'key_3', 'key_4', 'key_5', 'key_6', 'key_7']);
  });

  it('writes array literals Postgres reads back as the same values', () => {
    expect(arrayLiteral([1, 2.5, 1.2e-7, null, true, false])).toBe('{1,2.5,1.2e-7,NULL,t,f}');
    expect(arrayLiteral([new Date(Date.UTC(2026, 10, 22, 1, 2, 3, 4))])).toBe('{"2026-11-22T01:02:03.004Z"}');
    expect(arrayLiteral(['plain', 'a,b', '{x}', 'NULL', 'say "hi"', 'back\\slash', ''])).toBe('{"plain","a,b","{x}","NULL","say \\"hi\\"","back\\\\slash",""}');
    expect(arrayLiteral([])).toBe('{}');
  });
});

describe('the usage writer on a real database', () => {
  let tdb: TestDatabase;
  const dirs: string[] = [];
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await migrate(tdb.db, MIGRATIONS_DIR);
  }, 60_000);
  afterAll(async () => {
    await tdb?.db.close();
    await tdb?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const team = (prefix: string) => ({ ...record(0), teamId: prefix });
  const count = async (teamId: string) => (await tdb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records WHERE team_id = $1', [teamId])).rows[0].n;

  it('logs and counts a record Postgres refuses (NUL in a text column) and writes the others of its batch', async () => {
    const w = new UsageWriter(tdb.db, log, { flushMs: 5, batchSize: 10 });
    await Promise.all([0, 1, 2, 3].map((i) => w.write({ ...team('nul'), keyId: `k${i}`, model: i === 2 ? 'ok-model\u0000' : 'ok-model' })));
    expect(await count('nul')).toBe(3);
    expect(w.rejected).toBe(1);
    expect(w.queued).toBe(0);
    await w.drain();
  });

  it('stores a journaled record once, even when its segment is replayed again after a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-usage-journal-'));
    dirs.push(dir);
    let down = true;
    const flaky = {
      ...tdb.db,
      kind: tdb.db.kind,
      query: (sql: string, params?: readonly unknown[]) => (down ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) : tdb.db.query(sql, params)),
    } as Db;
    const first = new UsageWriter(flaky, log, { flushMs: 5, batchSize: 10, journal: { dir, maxBytes: 1_000_000 } });
    await Promise.all([0, 1, 2].map((i) => first.write({ ...team('replay'), keyId: `k${i}`, costUsd: 0.5 })));
    expect(await count('replay')).toBe(0);
    // The node dies after the replay committed but before it deleted the segment: keep a copy to put back.
    const saved = join(dir, '..', `${basename(dir)}-saved`);
    dirs.push(saved);
    await first.drain();
    cpSync(dir, saved, { recursive: true });
    down = false;
    const second = new UsageWriter(flaky, log, { flushMs: 5, journal: { dir, maxBytes: 1_000_000 } });
    await until(async () => (await count('replay')) === 3 && readdirSync(dir).length === 0);
    await second.drain();
    cpSync(saved, dir, { recursive: true });
    const third = new UsageWriter(flaky, log, { flushMs: 5, journal: { dir, maxBytes: 1_000_000 } });
    await until(async () => readdirSync(dir).length === 0);
    await third.drain();
    const sum = await tdb.db.query<{ n: number; cost: number }>("SELECT count(*)::int AS n, sum(cost_usd)::float8 AS cost FROM usage_records WHERE team_id = 'replay'");
    expect(sum.rows[0]).toEqual({ n: 3, cost: 1.5 });
  });
});

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
