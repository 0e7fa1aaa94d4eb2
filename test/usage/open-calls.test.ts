/**
 * Open calls on a real database (issue 11 point 2; docs/operations.md "Open calls"): a streamed call's open row and
 * its usage record through the usage writer, in every order they can reach Postgres (same batch, separate batches,
 * the record first as after a late journal segment, the journal replayed by a restarted node), the leader's job
 * turning expired rows into records from the estimate, idempotently, and a late real record replacing an estimate.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../core/db/db.ts';
import { migrate } from '../../core/db/migrate.ts';
import { createLogger } from '../../core/logger.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { closeLostCalls } from '../../control-plane/usage/close-lost-calls.ts';
import type { OpenCall } from '../../proxy/metering/open-call.ts';
import type { UsageRecord } from '../../proxy/metering/usage-record.ts';
import { UsageWriter } from '../../proxy/metering/usage-writer.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';

const log = createLogger('silent');
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

const at = new Date('2026-11-24T10:00:00Z');

const openCall = (team: string, over: Partial<OpenCall> = {}): OpenCall => ({
  at, keyId: 'key_open', teamId: team, model: 'alias-fast', servedModel: 'gpt-4o-mini', alias: 'alias-fast', provider: 'openai',
  accountId: 'acc_1', clientStyle: 'chat', upstreamStyle: 'chat', stream: true, inputTokens: 250, outputTokens: 4096, costUsd: 0.0025,
  ...over,
});

const record = (team: string, over: Partial<UsageRecord> = {}): UsageRecord => ({
  at, keyId: 'key_open', teamId: team, model: 'alias-fast', servedModel: 'gpt-4o-mini', alias: 'alias-fast', provider: 'openai',
  accountId: 'acc_1', clientStyle: 'chat', upstreamStyle: 'chat', status: 200, errorCode: null, inputTokens: 200, outputTokens: 30,
  cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: null, usageSource: 'reported', latencyMs: 800, ttfbMs: 120, costUsd: 0.0001, stream: true,
  ...over,
});

const openRows = async (team: string) =>
  (await tdb.db.query<{ record_id: string; node_id: string; served_model: string; lease_s: number }>(
    'SELECT record_id, node_id, served_model, extract(epoch FROM lease_until - now())::float8 AS lease_s FROM usage_open_calls WHERE team_id = $1', [team])).rows;

interface Row { record_id: string; status: number; error_code: string | null; usage_source: string; input_tokens: number; output_tokens: number; cost_usd: number; ttfb_ms: number | null; written_xid: string }
const records = async (team: string) =>
  (await tdb.db.query<Row>('SELECT record_id, status, error_code, usage_source, input_tokens, output_tokens, cost_usd, ttfb_ms, written_xid::text FROM usage_records WHERE team_id = $1', [team])).rows;

/** Makes every open row of the team's calls look abandoned since a while. */
const expire = (team: string) => tdb.db.query("UPDATE usage_open_calls SET lease_until = now() - interval '1 second' WHERE team_id = $1", [team]);

/** A Db whose queries fail as an unreachable server's do while `down()` says so. */
function flaky(down: () => boolean): Db {
  return {
    ...tdb.db,
    kind: tdb.db.kind,
    query: (sql: string, params?: readonly unknown[], opts?: { name?: string }) =>
      down() ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) : tdb.db.query(sql, params, opts),
  } as Db;
}

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('open calls through the usage writer', () => {
  it('writes the open row durably, with the node and a lease from Postgres, and the record deletes it', async () => {
    const w = new UsageWriter(tdb.db, log, { openCalls: { nodeId: 'node-a', leaseMs: 30_000 } });
    const id = randomUUID();
    await w.open(id, openCall('sep'));
    const open = await openRows('sep');
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ record_id: id, node_id: 'node-a', served_model: 'gpt-4o-mini' });
    expect(open[0].lease_s).toBeGreaterThan(25);
    expect(open[0].lease_s).toBeLessThanOrEqual(30);
    expect(w.openCalls).toBe(1);
    await w.write(record('sep'), id);
    expect(w.openCalls).toBe(0);
    expect(await openRows('sep')).toEqual([]);
    expect((await records('sep')).map((r) => r.record_id)).toEqual([id]);
    await w.drain();
  });

  it('leaves no open row when the row and its record are in one batch', async () => {
    const w = new UsageWriter(tdb.db, log, { flushMs: 20, batchSize: 100 });
    const id = randomUUID();
    const opened = w.open(id, openCall('same'));
    const written = w.write(record('same'), id);
    await Promise.all([opened, written]);
    expect(await openRows('same')).toEqual([]);
    expect(await records('same')).toHaveLength(1);
    await w.drain();
  });

  it('keeps the last of two open rows of one call (another upstream answered), in one batch or two', async () => {
    const w = new UsageWriter(tdb.db, log, { flushMs: 20, batchSize: 100 });
    const [one, two] = [randomUUID(), randomUUID()];
    await Promise.all([w.open(one, openCall('moved')), w.open(one, openCall('moved', { servedModel: 'gpt-4o' }))]);
    await w.open(two, openCall('moved'));
    await w.open(two, openCall('moved', { servedModel: 'gpt-4o', accountId: 'acc_2' }));
    const rows = await openRows('moved');
    expect(rows.map((r) => r.served_model).sort()).toEqual(['gpt-4o', 'gpt-4o']);
    await Promise.all([w.write(record('moved'), one), w.write(record('moved'), two)]);
    expect(await openRows('moved')).toEqual([]);
    await w.drain();
  });

  it('an open row that reaches Postgres after its record (a journal segment replayed late) is not renewed and never becomes a second record', async () => {
    const live = new UsageWriter(tdb.db, log, { openCalls: { nodeId: 'node-late', leaseMs: 1500 } });
    const id = randomUUID();
    await live.open(id, openCall('late'));
    await live.write(record('late'), id);
    // The same row again, as a late replay would bring it, while the node keeps other calls open (and renews them).
    const replay = new UsageWriter(tdb.db, log, { openCalls: { nodeId: 'node-late', leaseMs: 1500 } });
    await replay.open(id, openCall('late'));
    await replay.drain();
    await live.open(randomUUID(), openCall('late-other'));
    expect((await openRows('late')).map((r) => r.record_id)).toEqual([id]);
    await until(async () => (await openRows('late'))[0].lease_s < 0, 10_000);
    expect((await openRows('late-other'))[0].lease_s).toBeGreaterThan(0);
    await closeLostCalls(tdb.db, 90);
    expect(await openRows('late')).toEqual([]);
    expect(await records('late')).toMatchObject([{ record_id: id, error_code: null, usage_source: 'reported' }]);
    await live.drain();
  });

  it('renews the leases of its own node only, in one statement', async () => {
    const mine = new UsageWriter(tdb.db, log, { openCalls: { nodeId: 'node-renew', leaseMs: 3000 } });
    const other = new UsageWriter(tdb.db, log, { openCalls: { nodeId: 'node-still', leaseMs: 3000 } });
    const statements: string[] = [];
    const query = tdb.db.query.bind(tdb.db);
    const spy = { ...tdb.db, kind: tdb.db.kind, query: (sql: string, params?: readonly unknown[], opts?: { name?: string }) => {
      statements.push(sql);
      return query(sql, params, opts);
    } } as Db;
    const counted = new UsageWriter(spy, log, { openCalls: { nodeId: 'node-counted', leaseMs: 3000 } });
    await Promise.all([mine.open(randomUUID(), openCall('renew')), counted.open(randomUUID(), openCall('renew')), counted.open(randomUUID(), openCall('renew'))]);
    await other.open(randomUUID(), openCall('renew-other'));
    // The other node stops (renews no more): its row's lease runs down while this node's are renewed.
    await other.drain();
    // A second's worth of renewals (every third of the lease) while the other node's lease runs down.
    await tdb.db.query("UPDATE usage_open_calls SET lease_until = now() + interval '1 second' WHERE team_id IN ('renew', 'renew-other')");
    await new Promise((r) => setTimeout(r, 1300));
    expect((await openRows('renew')).every((r) => r.lease_s > 1.5)).toBe(true);
    expect((await openRows('renew-other'))[0].lease_s).toBeLessThan(0.5);
    const renewals = statements.filter((s) => s.startsWith('UPDATE usage_open_calls'));
    expect(renewals.length).toBeGreaterThanOrEqual(1);
    expect(renewals.length).toBeLessThanOrEqual(2);
    await Promise.all([mine.drain(), counted.drain()]);
  });
});

describe('the leader turning lost calls into records', () => {
  it('records an expired open call from its estimate (node_lost, estimated, status 200) and deletes it, once', async () => {
    const w = new UsageWriter(tdb.db, log);
    const id = randomUUID();
    await w.open(id, openCall('lost'));
    await w.open(randomUUID(), openCall('lost-live'));
    // Within their lease, calls are left alone.
    await closeLostCalls(tdb.db, 90);
    expect(await openRows('lost')).toHaveLength(1);
    await expire('lost');
    const r = await closeLostCalls(tdb.db, 90);
    expect(r.closed).toBeGreaterThanOrEqual(1);
    expect(await openRows('lost')).toEqual([]);
    expect(await openRows('lost-live')).toHaveLength(1);
    const rows = await records('lost');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ record_id: id, status: 200, error_code: 'node_lost', usage_source: 'estimated', input_tokens: 250, output_tokens: 4096, cost_usd: 0.0025, ttfb_ms: null });
    await closeLostCalls(tdb.db, 90);
    expect(await records('lost')).toHaveLength(1);
    await w.drain();
  });

  it('deletes an expired open row whose record is already stored without recording it again', async () => {
    const id = randomUUID();
    const w = new UsageWriter(tdb.db, log);
    await w.write(record('both'), id);
    // The row arrives after its record and is inserted anyway (two transactions racing past the writer's check).
    await tdb.db.query(
      `INSERT INTO usage_open_calls (record_id, node_id, lease_until, renewed_at, at, key_id, team_id, model, client_style, stream, input_tokens, output_tokens, cost_usd)
       VALUES ($1, 'node-x', now() - interval '1 second', now(), now(), 'key_open', 'both', 'm', 'chat', true, 1, 1, 1)`, [id]);
    await closeLostCalls(tdb.db, 90);
    expect(await openRows('both')).toEqual([]);
    expect(await records('both')).toMatchObject([{ record_id: id, error_code: null, usage_source: 'reported' }]);
    await w.drain();
  });

  it('replaces the estimate with the real record when the node was alive after all (cut off from Postgres)', async () => {
    const w = new UsageWriter(tdb.db, log);
    const id = randomUUID();
    await w.open(id, openCall('revived'));
    await expire('revived');
    await closeLostCalls(tdb.db, 90);
    const [estimated] = await records('revived');
    expect(estimated.error_code).toBe('node_lost');
    await w.write(record('revived'), id);
    const rows = await records('revived');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ record_id: id, error_code: null, usage_source: 'reported', output_tokens: 30, cost_usd: 0.0001 });
    // Seen as a new row by the usage rollups (a later transaction).
    expect(BigInt(rows[0].written_xid)).toBeGreaterThan(BigInt(estimated.written_xid));
    await w.drain();
  });
});

describe('open calls in the journal', () => {
  it('a node killed mid-stream while Postgres was down: its restart replays the open row, and the call is recorded once its lease runs out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-open-journal-'));
    dirs.push(dir);
    let down = true;
    const db = flaky(() => down);
    const killed = new UsageWriter(db, log, { journal: { dir, maxBytes: 1_000_000 }, openCalls: { nodeId: 'node-killed', leaseMs: 2000 } });
    const id = randomUUID();
    await killed.open(id, openCall('killed'));
    // Journaled, then "killed": nothing more is written by it (drain only closes the journal; its queue is empty).
    await killed.drain();
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    down = false;
    const restarted = new UsageWriter(db, log, { journal: { dir, maxBytes: 1_000_000 }, openCalls: { nodeId: 'node-new', leaseMs: 2000 } });
    await until(async () => readdirSync(dir).length === 0 && (await openRows('killed')).length === 1);
    // Replayed with the dead node's id and a fresh lease: nobody renews it, and it is recorded once it runs out.
    const [open] = await openRows('killed');
    expect(open.node_id).toBe('node-killed');
    expect(open.lease_s).toBeGreaterThan(0.5);
    await closeLostCalls(tdb.db, 90);
    expect(await openRows('killed')).toHaveLength(1);
    await until(async () => (await closeLostCalls(tdb.db, 90), (await records('killed')).length === 1), 10_000);
    expect((await records('killed'))[0]).toMatchObject({ record_id: id, error_code: 'node_lost', usage_source: 'estimated' });
    expect(await openRows('killed')).toEqual([]);
    await restarted.drain();
  });

  it('a journal holding the open row and the record: the replay stores the record and no open row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-open-journal-'));
    dirs.push(dir);
    let down = true;
    const db = flaky(() => down);
    const first = new UsageWriter(db, log, { journal: { dir, maxBytes: 1_000_000 } });
    const ids = [randomUUID(), randomUUID()];
    await first.open(ids[0], openCall('replayed'));
    await first.open(ids[1], openCall('replayed'));
    await first.write(record('replayed'), ids[0]);
    await first.write(record('replayed', { outputTokens: 31 }), ids[1]);
    await first.drain();
    down = false;
    const second = new UsageWriter(db, log, { journal: { dir, maxBytes: 1_000_000 } });
    await until(async () => readdirSync(dir).length === 0);
    expect((await records('replayed')).map((r) => r.record_id).sort()).toEqual([...ids].sort());
    expect(await openRows('replayed')).toEqual([]);
    await second.drain();
  });
});
