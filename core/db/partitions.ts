/**
 * Tables partitioned by day of expiry (migrations/…-partitions-*.sql): a row's `expires_at` is its time plus its
 * retention, each partition holds one UTC day of expiries, and retention drops a partition whole once its day has
 * passed. Under each parent:
 *
 * - `<table>_legacy`: the table as it was before partitioning, covering every expiry before a bound kept in
 *   partition_legacy; dropped whole once the bound has passed;
 * - `<table>_pYYYYMMDD`: one per day of expiry, created ahead by the leader's job (partitions-job.ts);
 * - `<table>_default`: takes a row whose day has no partition yet, so an insert never fails for want of one. Creating
 *   a day's partition moves that day's rows out of it in the same transaction (Postgres refuses to create a
 *   partition while the default holds rows of its range).
 *
 * Creating and dropping partitions lock the parent for a moment; a lock that is not granted within lock_timeout
 * gives up (the job tries again on its next run) rather than queueing writers behind a long reader.
 */
import type { Db, Queryable } from './db.ts';

export const PARTITIONED_TABLES = ['events', 'usage_records', 'call_bodies', 'ingest_outcomes'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/**
 * Storage parameters of each new partition. Events: a document is compressed and kept in its row up to 4 KB
 * (Postgres moves a value out of line into the TOAST table past about 2 KB, which is an insert and an index entry
 * more per event, and a read more per event shown; a 5 KB event compresses to about 2 KB with lz4).
 */
const PARTITION_STORAGE: Partial<Record<PartitionedTable, string>> = { events: 'toast_tuple_target = 4096' };

export const DAY_MS = 86_400_000;
const LOCK_TIMEOUT = "SET LOCAL lock_timeout = '5s'";

export interface Partition {
  name: string;
  /** Inclusive lower bound of expires_at (ms); null for MINVALUE. */
  from: number | null;
  /** Exclusive upper bound (ms); null for the default partition. */
  to: number | null;
}

/** The UTC day (ms at 00:00) that holds an expiry. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function partitionName(table: PartitionedTable, day: number): string {
  return `${table}_p${new Date(day).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The partitions of a table with their bounds, read from the catalog. */
export async function listPartitions(db: Queryable, table: PartitionedTable): Promise<Partition[]> {
  const r = await db.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    [table],
  );
  return r.rows.map(({ name, bound }) => {
    if (bound === 'DEFAULT') return { name, from: null, to: null };
    const m = /FROM \((.+)\) TO \((.+)\)/.exec(bound);
    if (!m) throw new Error(`Unexpected partition bound of ${name}: ${bound}`);
    const at = (v: string) => (v === 'MINVALUE' ? null : Date.parse(v.replace(/^'|'$/g, '')));
    return { name, from: at(m[1]), to: at(m[2]) };
  });
}

/** Whether a day's expiries already have a partition (their own, or the legacy one). */
export function covered(partitions: readonly Partition[], day: number): boolean {
  return partitions.some((p) => p.to !== null && (p.from === null || p.from <= day) && day < p.to);
}

/**
 * Creates the partition of one day of expiries, moving that day's rows out of the default partition first, all in
 * one transaction. Returns false when another node created it first (nothing to do then).
 */
export async function createDayPartition(db: Db, table: PartitionedTable, day: number): Promise<boolean> {
  const name = partitionName(table, day);
  const from = new Date(day).toISOString();
  const to = new Date(day + DAY_MS).toISOString();
  try {
    await db.tx(async (q) => {
      await q.query(LOCK_TIMEOUT);
      // Writers that would land in the default partition wait for this moment: no row of the day slips in between.
      await q.query(`LOCK TABLE ${table}_default IN ACCESS EXCLUSIVE MODE`);
      if ((await existingTables(q, [name])).length > 0) throw new AlreadyThere();
      await q.query(`CREATE TEMP TABLE partition_moving ON COMMIT DROP AS
        WITH moved AS (DELETE FROM ${table}_default WHERE expires_at >= $1 AND expires_at < $2 RETURNING *) SELECT * FROM moved`, [from, to]);
      const storage = PARTITION_STORAGE[table];
      await q.query(`CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM ('${from}') TO ('${to}')${storage ? ` WITH (${storage})` : ''}`);
      await q.query(`INSERT INTO ${table} SELECT * FROM partition_moving`);
    });
    return true;
  } catch (e) {
    if (e instanceof AlreadyThere) return false;
    throw e;
  }
}

class AlreadyThere extends Error {}

/**
 * Drops the partitions whose every expiry has passed (the legacy one included, with its bound). Returns their
 * names. The default partition is never dropped: its expired rows are deleted row by row (expiredInDefault).
 */
export async function dropExpiredPartitions(db: Db, table: PartitionedTable, now: number): Promise<string[]> {
  const dropped: string[] = [];
  for (const p of await listPartitions(db, table)) {
    if (p.to === null || p.to > now) continue;
    await db.tx(async (q) => {
      await q.query(LOCK_TIMEOUT);
      await q.query(`DROP TABLE IF EXISTS ${p.name}`);
      if (p.from === null) await q.query('DELETE FROM partition_legacy WHERE table_name = $1', [table]);
    });
    dropped.push(p.name);
  }
  return dropped;
}

/** The days of expiry that rows of the default partition wait for (their partitions are then created). */
export async function daysWaitingInDefault(db: Queryable, table: PartitionedTable): Promise<number[]> {
  const r = await db.query<{ day: Date }>(`SELECT DISTINCT date_trunc('day', expires_at, 'UTC') AS day FROM ${table}_default`);
  return r.rows.map((x) => new Date(x.day).getTime());
}

/**
 * Deletes, in batches, the rows whose expiry has passed but whose partition is not yet dropped: those of today's
 * partition (dropped whole only once the day is over) and of the default partition. Keeps a retention exact to the
 * job's period instead of to the day. Returns how many rows went.
 */
export async function deleteExpiredRows(db: Queryable, table: PartitionedTable, now: number, batch: number): Promise<number> {
  let total = 0;
  for (const name of await existingTables(db, [`${table}_default`, partitionName(table, dayOf(now))])) {
    for (;;) {
      const d = await db.query(`DELETE FROM ${name} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${name} WHERE expires_at <= $1 LIMIT $2))`, [new Date(now), batch]);
      total += d.rowCount;
      if (d.rowCount < batch) break;
    }
  }
  return total;
}

/** The tables of the list that exist (a legacy partition is gone once its bound has passed), in the list's order. */
export async function existingTables(db: Queryable, names: readonly string[]): Promise<string[]> {
  const r = await db.query<{ name: string }>("SELECT relname AS name FROM pg_class WHERE relname = ANY($1) AND relkind IN ('r', 'p')", [names]);
  const found = new Set(r.rows.map((x) => x.name));
  return names.filter((n) => found.has(n));
}
