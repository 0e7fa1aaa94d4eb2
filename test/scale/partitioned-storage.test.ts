/**
 * Partitioned storage (migrations/…-partitions-*.sql, core/db/partitions.ts, control-plane/storage/partitions-job.ts):
 * a database with rows from before partitioning is migrated without losing one (its tables become legacy
 * partitions), repeated event ids still count once across the old and new tables, a row whose day has no partition
 * is never refused, the job creates days ahead and moves waiting rows, and expired partitions are dropped whole.
 * Run on Postgres (DATABASE_URL) and on the embedded in-process engine.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import type { AppContext } from '../../core/context.ts';
import type { Db } from '../../core/db/db.ts';
import { listMigrations, migrate } from '../../core/db/migrate.ts';
import { createPgliteDb } from '../../core/db/pglite-db.ts';
import { DAY_MS, dayOf, listPartitions, partitionName } from '../../core/db/partitions.ts';
import { maintainPartitions } from '../../control-plane/storage/partitions-job.ts';
import { insertEvents } from '../../ingest/writer/batch-statements.ts';
import { eventRowsText, type EventRowsText } from '../../ingest/writer/prepare-batch.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';

const FIRST_PARTITIONED = '20261124T2000-partitions-prepare.sql';
const hex = (n: number) => n.toString(16).padStart(32, '0');

/** The migrations from before partitioning, in a directory of their own. */
function oldMigrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-migrations-'));
  for (const f of listMigrations(MIGRATIONS_DIR).filter((n) => n < FIRST_PARTITIONED)) copyFileSync(join(MIGRATIONS_DIR, f), join(dir, f));
  return dir;
}

const count = async (db: Db, sql: string) => (await db.query<{ n: number }>(sql)).rows[0].n;
const counts = async (db: Db) => ({
  events: await count(db, 'SELECT count(*)::int AS n FROM events'),
  usage: await count(db, 'SELECT count(*)::int AS n FROM usage_records'),
  bodies: await count(db, 'SELECT count(*)::int AS n FROM call_bodies'),
  outcomes: await count(db, 'SELECT coalesce(sum(quantity), 0)::int AS n FROM ingest_outcomes'),
});

/** Rows of every partitioned table, written by the schema from before partitioning. */
async function seedOld(db: Db, rows: number): Promise<void> {
  await db.exec(`
    INSERT INTO teams (id, name) VALUES ('team_p', 'partitioned');
    INSERT INTO projects (id, team_id, name, slug, retention_days) VALUES (1, 'team_p', 'p', 'p', 30);
    INSERT INTO issues (id, project_id, fingerprint, title, first_seen, last_seen) VALUES ('iss_p', 1, 'fp', 'Boom', now(), now());`);
  await db.query(
    `INSERT INTO events (project_id, event_id, issue_id, timestamp, received_at, level, title, data)
     SELECT 1, lpad(to_hex(i), 32, '0'), 'iss_p', now(), now() - make_interval(hours => i), 'error', 'Boom', '{"n":1}'
     FROM generate_series(1, $1) AS i`, [rows]);
  await db.query(
    `INSERT INTO usage_records (record_id, at, key_id, team_id, model, client_style, status, usage_source, latency_ms, input_tokens)
     SELECT gen_random_uuid(), now() - make_interval(hours => i), 'key_p', 'team_p', 'm', 'chat', 200, 'reported', 10, i
     FROM generate_series(1, $1) AS i`, [rows]);
  await db.query(
    `INSERT INTO call_bodies (id, key_id, team_id, model, client_style, stream, status, request, created_at, expires_at)
     SELECT 'call_' || i, 'key_p', 'team_p', 'm', 'chat', false, 200, '{}', now(), now() + make_interval(days => 1 + i % 30)
     FROM generate_series(1, $1) AS i`, [rows]);
  await db.query(
    `INSERT INTO ingest_outcomes (project_id, hour, outcome, category, quantity)
     SELECT 1, date_trunc('hour', now()) - make_interval(hours => i), 'accepted', 'error', 2 FROM generate_series(1, $1) AS i`, [rows]);
}

function eventRow(n: number, receivedAt: Date): EventRowsText {
  return eventRowsText([{
    project_id: 1, event_id: hex(n), fingerprint: 'fp', timestamp: receivedAt.toISOString(), received_at: receivedAt.toISOString(),
    level: 'error', release: null, environment: null, title: 'Boom', data: { n },
  }]);
}

function contextOf(db: Db, clock: ManualClock): AppContext {
  return { db, clock, config: { usageRetentionDays: 90 } } as unknown as AppContext;
}

function suite(name: string, open: () => Promise<{ db: Db; drop(): Promise<void> }>) {
  describe(name, () => {
    let t: { db: Db; drop(): Promise<void> };
    let dir: string;
    const ROWS = 200;
    beforeAll(async () => {
      t = await open();
      dir = oldMigrations();
      await migrate(t.db, dir);
      await seedOld(t.db, ROWS);
    }, 120_000);
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
      await t?.drop();
    });

    it('attaches the tables from before partitioning as legacy partitions: no row lost, none copied', async () => {
      const before = await counts(t.db);
      expect(before).toEqual({ events: ROWS, usage: ROWS, bodies: ROWS, outcomes: 2 * ROWS });
      await migrate(t.db, MIGRATIONS_DIR);
      expect(await counts(t.db)).toEqual(before);
      for (const table of ['events', 'usage_records', 'call_bodies', 'ingest_outcomes'] as const) {
        const parts = await listPartitions(t.db, table);
        expect(parts.map((p) => p.name).sort()).toEqual([`${table}_default`, `${table}_legacy`]);
        const legacy = parts.find((p) => p.name === `${table}_legacy`);
        expect(legacy?.from).toBeNull();
        // Every row is still in the table it was written to.
        expect(await count(t.db, `SELECT count(*)::int AS n FROM ${table}_legacy`)).toBe(table === 'ingest_outcomes' ? ROWS : ROWS);
      }
    });

    it('counts an event id once across the legacy table and the new partitions', async () => {
      const clock = new ManualClock(Date.now());
      // An id the legacy table holds is skipped; a new one is stored.
      await t.db.tx(async (q) => {
        expect((await insertEvents(q, eventRow(5, new Date(clock.now())), 1)).size).toBe(0);
        expect([...(await insertEvents(q, eventRow(10_001, new Date(clock.now())), 1))]).toEqual([`1:${hex(10_001)}`]);
        expect((await insertEvents(q, eventRow(10_001, new Date(clock.now())), 1)).size).toBe(0);
      });
      expect(await count(t.db, 'SELECT count(*)::int AS n FROM events')).toBe(ROWS + 1);
      expect(await count(t.db, "SELECT count(*)::int AS n FROM event_ids WHERE event_id = lpad('2711', 32, '0')")).toBe(1);
    });

    it('never refuses a row whose day has no partition: it waits in the default partition and the job moves it', async () => {
      const clock = new ManualClock(Date.now());
      // Past the legacy bound: a project with a long retention.
      await t.db.exec('UPDATE projects SET retention_days = 400 WHERE id = 1');
      await t.db.tx((q) => insertEvents(q, eventRow(10_002, new Date(clock.now())), 1));
      expect(await count(t.db, 'SELECT count(*)::int AS n FROM events_default')).toBe(1);

      const r = await maintainPartitions(contextOf(t.db, clock));
      const day = dayOf(clock.now() + 400 * DAY_MS);
      expect(r.created).toContain(`events:${new Date(day).toISOString().slice(0, 10)}`);
      expect(await count(t.db, 'SELECT count(*)::int AS n FROM events_default')).toBe(0);
      expect(await count(t.db, `SELECT count(*)::int AS n FROM ${partitionName('events', day)}`)).toBe(1);
      // Every partition of events keeps a compressed document in its row up to 4 KB: those the migration found, the new.
      const options = await t.db.query<{ relname: string; reloptions: string[] | null }>(
        `SELECT c.relname, c.reloptions FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`);
      expect(options.rows.map((r) => r.relname)).toEqual(expect.arrayContaining(['events_default', 'events_legacy', partitionName('events', day)]));
      for (const r of options.rows) expect(r.reloptions, r.relname).toContain('toast_tuple_target=4096');
      // Days ahead for the retentions in use: tomorrow's events (400 days); usage records' next days (90) are still
      // the legacy partition's.
      expect((await listPartitions(t.db, 'events')).map((p) => p.name)).toContain(partitionName('events', day + DAY_MS));
      expect((await listPartitions(t.db, 'usage_records')).map((p) => p.name).sort()).toEqual(['usage_records_default', 'usage_records_legacy']);
      // A second run finds nothing to do.
      expect((await maintainPartitions(contextOf(t.db, clock))).created).toEqual([]);
      expect(await count(t.db, 'SELECT count(*)::int AS n FROM events')).toBe(ROWS + 2);
    });

    it('drops whole partitions once their last day has passed, the legacy one with its bound', async () => {
      const clock = new ManualClock(Date.now());
      const until = (await t.db.query<{ until: Date }>("SELECT until FROM partition_legacy WHERE table_name = 'call_bodies'")).rows[0].until;
      clock.set(new Date(until).getTime() + 1000);
      const r = await maintainPartitions(contextOf(t.db, clock));
      expect(r.dropped).toContain('call_bodies_legacy');
      const dropped = [...r.dropped];
      expect(await count(t.db, 'SELECT count(*)::int AS n FROM call_bodies')).toBe(0);
      expect(await count(t.db, "SELECT count(*)::int AS n FROM partition_legacy WHERE table_name = 'call_bodies'")).toBe(0);

      // Far enough for every partition made so far, except events' 400 days.
      clock.set(Date.now() + 120 * DAY_MS);
      dropped.push(...(await maintainPartitions(contextOf(t.db, clock))).dropped);
      expect(dropped).toEqual(expect.arrayContaining(['events_legacy', 'usage_records_legacy', 'ingest_outcomes_legacy']));
      expect(await counts(t.db)).toEqual({ events: 1, usage: 0, bodies: 0, outcomes: 0 });
      // Inserting still works after the legacy partitions are gone (the event id check no longer has a bound).
      await t.db.tx((q) => insertEvents(q, eventRow(10_003, new Date(clock.now())), 1));
      expect(await count(t.db, 'SELECT count(*)::int AS n FROM events')).toBe(2);
    });
  });
}

suite('partitioned storage on Postgres', async (): Promise<TestDatabase> => createTestDatabase());
suite('partitioned storage on the embedded engine', async () => ({ db: await createPgliteDb('memory'), drop: async () => {} }));


describe('a new installation', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await migrate(t.db, MIGRATIONS_DIR);
  });
  afterAll(async () => t?.drop());

  it('has only day partitions after the first run: its empty pre-partitioning tables are bounded at today and dropped', async () => {
    const today = dayOf(Date.now());
    const bounds = (await t.db.query<{ until: Date }>('SELECT until FROM partition_legacy')).rows.map((r) => new Date(r.until).getTime());
    expect(bounds).toEqual([today, today, today, today]);
    const r = await maintainPartitions(contextOf(t.db, new ManualClock(Date.now())));
    expect(r.dropped.sort()).toEqual(['call_bodies_legacy', 'events_legacy', 'ingest_outcomes_legacy', 'usage_records_legacy']);
    // Created ahead: usage records 90 days out and the stats' 90 days, today's and tomorrow's (no projects or keys yet).
    expect(r.created.sort()).toEqual([
      `ingest_outcomes:${new Date(today + 90 * DAY_MS).toISOString().slice(0, 10)}`,
      `ingest_outcomes:${new Date(today + 91 * DAY_MS).toISOString().slice(0, 10)}`,
      `usage_records:${new Date(today + 90 * DAY_MS).toISOString().slice(0, 10)}`,
      `usage_records:${new Date(today + 91 * DAY_MS).toISOString().slice(0, 10)}`,
    ]);
  });
});
