/**
 * The shared write path's suite (backpressure, failure splitting, durability), on a throwaway Postgres that the
 * tests stop and start. Rows go to a table with a primary key (replays repeat rows: the commit skips known ids)
 * and a CHECK that makes a row unstorable for its content.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../test/support/throwaway-postgres.ts';
import type { Db } from '../db/db.ts';
import { createPgDb } from '../db/pg-db.ts';
import { svcError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { DurableWriter, type DurableWriterOptions } from './durable-writer.ts';
import { frameRecords, WriteJournal } from './write-journal.ts';

interface Row {
  id: string;
  v: number;
}

const log = createLogger('silent');
let pgServer: ThrowawayPostgres;
let db: Db;
const dirs: string[] = [];

beforeAll(async () => {
  pgServer = await startThrowawayPostgres();
  db = createPgDb(pgServer.url, 4);
  await db.exec('CREATE TABLE rows (id text PRIMARY KEY, v int NOT NULL CHECK (v >= 0))');
}, 120_000);

afterAll(async () => {
  await db?.close();
  await pgServer?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const codec = { encode: (r: Row) => Buffer.from(JSON.stringify(r)), decode: (b: Buffer) => JSON.parse(b.toString()) as Row };

async function commit(rows: Row[]): Promise<void> {
  await db.query(
    'INSERT INTO rows (id, v) SELECT * FROM unnest($1::text[], $2::int[]) ON CONFLICT (id) DO NOTHING',
    [rows.map((r) => r.id), rows.map((r) => r.v)],
  );
}

function journalDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-writer-'));
  dirs.push(d);
  return d;
}

function writer(opts: Partial<DurableWriterOptions<Row>> & { dir?: string; journalMax?: number } = {}) {
  const { dir, journalMax, ...rest } = opts;
  return new DurableWriter<Row>({
    name: 'test', log, commit, sizeOf: () => 10, maxRows: 1000, maxBytes: 1_000_000, batchSize: 50, flushMs: 2, concurrency: 2,
    refuse: (reason, pending) => svcError('service_unavailable', `refused: ${reason}`, { pending }, { 'Retry-After': '1' }),
    ...(dir ? { journal: { journal: new WriteJournal(dir, { maxBytes: journalMax ?? 10_000_000 }), codec } } : {}),
    ...rest,
  });
}

async function stored(prefix: string): Promise<string[]> {
  const r = await db.query<{ id: string }>('SELECT id FROM rows WHERE id LIKE $1 ORDER BY id', [`${prefix}%`]);
  return r.rows.map((x) => x.id);
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the durable writer', () => {
  it('resolves a write only once its row is committed, in group commits', async () => {
    const w = writer();
    const results = await Promise.all(ids('c-', 120).map((id) => w.write({ id, v: 1 }).then(async (r) => ({ r, there: (await stored(id)).length }))));
    expect(results.every((x) => x.r.status === 'committed' && x.there === 1)).toBe(true);
    expect(w.stats.batches).toBeLessThan(120);
    expect(w.pending).toBe(0);
    await w.drain();
  });

  it('splits a batch refused for one row: the others are written, the bad one is reported, nothing is retried forever', async () => {
    const w = writer({ dir: journalDir() });
    const rows = ids('s-', 20).map((id, i) => ({ id, v: i === 7 ? -1 : i }));
    const results = await Promise.all(rows.map((r) => w.write(r)));
    expect(results[7]).toMatchObject({ status: 'rejected', reason: expect.stringContaining('23514') });
    expect(results.filter((r) => r.status === 'committed')).toHaveLength(19);
    expect(await stored('s-')).toEqual(rows.filter((r) => r.v >= 0).map((r) => r.id));
    expect(w.journalBytes).toBe(0);
    await w.drain();
  });

  it('refuses past maxRows (reservations included) with the caller refusal, and once draining', async () => {
    const w = writer({ maxRows: 2 });
    const a = w.reserve(1);
    w.reserve(1);
    expect(w.full).toBe(true);
    expect(() => w.reserve(1)).toThrow(expect.objectContaining({ message: 'refused: queue_full' }));
    a.release();
    expect(w.pending).toBe(1);
    await w.drain(100);
    expect(() => w.reserve(1)).toThrow(expect.objectContaining({ message: 'refused: closing' }));
  });

  it('journals while Postgres is down, replays once it is back, and deletes the segments', async () => {
    const dir = journalDir();
    const w = writer({ dir });
    await pgServer.stop('immediate');
    try {
      const results = await Promise.all(ids('j-', 60).map((id) => w.write({ id, v: 1 })));
      expect(new Set(results.map((r) => r.status))).toEqual(new Set(['journaled']));
      expect(w.databaseDown).toBe(true);
      expect(w.journalBytes).toBeGreaterThan(0);
    } finally {
      await pgServer.start();
    }
    await until(async () => (await stored('j-')).length === 60 && w.journalBytes === 0, 60_000);
    expect(readdirSync(dir)).toEqual([]);
    expect(w.stats.replayed).toBe(60);
    const after = await w.write({ id: 'j-after', v: 1 });
    expect(after.status).toBe('committed');
    await w.drain();
  }, 120_000);

  it('replays at start what an earlier process journaled, ignoring a torn tail, and counts repeated rows once', async () => {
    const dir = journalDir();
    // An earlier process: rows journaled, the first two also committed (it died between commit and deletion), and
    // a record torn by the kill.
    const earlier = new WriteJournal(dir, { maxBytes: 1_000_000 });
    const rows = ids('r-', 5).map((id) => ({ id, v: 2 }));
    await earlier.append(rows.map((r) => codec.encode(r)));
    await commit(rows.slice(0, 2));
    await earlier.close();
    const torn = frameRecords([codec.encode({ id: 'r-torn', v: 1 })]);
    await appendFile(join(dir, readdirSync(dir)[0]), torn.subarray(0, torn.length - 1));

    const w = writer({ dir });
    await w.replay();
    expect(await stored('r-')).toEqual(rows.map((r) => r.id));
    expect(readdirSync(dir)).toEqual([]);
    await w.drain();
  });

  it('when the journal is full: refuses new rows with journal_full (503) and, in reject mode, fails the rows it cannot keep', async () => {
    const w = writer({ dir: journalDir(), journalMax: 200, batchSize: 1, concurrency: 1 });
    await pgServer.stop('immediate');
    try {
      const results = await Promise.allSettled(ids('f-', 8).map((id) => w.write({ id, v: 1 }).catch((e: unknown) => Promise.reject(e))));
      const journaled = results.filter((r) => r.status === 'fulfilled' && r.value.status === 'journaled').length;
      const refused = results.filter((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'journal_full').length;
      expect(journaled).toBeGreaterThan(0);
      expect(journaled + refused).toBe(8);
      expect(refused).toBeGreaterThan(0);
      expect(w.full).toBe(true);
      expect(() => w.reserve(100)).toThrow(expect.objectContaining({ code: 'journal_full', status: 503, headers: { 'Retry-After': '5' } }));
    } finally {
      await pgServer.start();
    }
    await until(async () => w.journalBytes === 0);
    await w.drain();
  }, 120_000);

  it('in hold mode keeps the rows the full journal cannot take and writes them once Postgres is back', async () => {
    const w = writer({ dir: journalDir(), journalMax: 100, batchSize: 1, concurrency: 1, whenJournalFull: 'hold' });
    await pgServer.stop('immediate');
    const writes = ids('h-', 6).map((id) => w.write({ id, v: 1 }));
    try {
      await until(async () => w.stats.journaled > 0 && w.stats.retries > 0);
      expect(w.pending).toBeGreaterThan(0);
    } finally {
      await pgServer.start();
    }
    const results = await Promise.all(writes);
    expect(results.every((r) => r.status === 'committed' || r.status === 'journaled')).toBe(true);
    await until(async () => (await stored('h-')).length === 6);
    await w.drain();
  }, 120_000);

  it('without a journal keeps a batch through transient failures and retries it with backoff', async () => {
    let fail = 2;
    const w = writer({
      commit: async (rows) => {
        if (fail-- > 0) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
        await commit(rows);
      },
    });
    const results = await Promise.all(ids('t-', 3).map((id) => w.write({ id, v: 1 })));
    expect(results.map((r) => r.status)).toEqual(['committed', 'committed', 'committed']);
    expect(w.stats.retries).toBe(2);
    await w.drain();
  });
});
