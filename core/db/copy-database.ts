/**
 * A logical copy of svc's database from one Postgres to another (PGlite to the child Postgres, or one major of the
 * child Postgres to the next): the dump and restore behind the embedded database's migration and upgrades, done
 * through SQL because the platform packages ship no pg_dump or pg_upgrade.
 *
 * The target gets the schema the source has, by applying the same migration files (those the source's
 * schema_migrations lists), plus the partitions the source created at run time; then, in one transaction with
 * triggers and foreign keys off (session_replication_role = replica), every table emptied and refilled, rows read
 * through a cursor and written in batches as their text form (`row::text`, cast back to the table's row type:
 * exact for every type), and every sequence set to the source's position. Then row counts are compared table by
 * table; the copy counts as done only when all match.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db, Queryable } from './db.ts';
import { EmbeddedDbError } from './embedded-db-error.ts';

const BATCH = 2000;

export interface CopyReport {
  tables: { table: string; rows: number }[];
  rows: number;
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
const qualified = (schema: string, name: string) => `${ident(schema)}.${ident(name)}`;
const shown = (t: Table) => `${t.schema}.${t.name}`;

const USER_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'`;

interface Table { schema: string; name: string }

/** Tables that hold rows of their own or of their partitions: plain and partitioned ones, partitions excluded. */
async function tables(q: Queryable): Promise<Table[]> {
  const r = await q.query<Table>(
    `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relpersistence <> 't' AND ${USER_SCHEMAS} ORDER BY 1, 2`,
  );
  return r.rows;
}

async function appliedMigrations(q: Queryable): Promise<string[]> {
  const exists = await q.query<{ ok: boolean }>(`SELECT to_regclass('public.schema_migrations') IS NOT NULL AS ok`);
  if (!exists.rows[0].ok) return [];
  return (await q.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map((r) => r.name);
}

/** The source's schema on the target: the same migration files, in the same order. */
async function applySchema(source: Db, target: Db, migrationsDir: string): Promise<void> {
  const names = await appliedMigrations(source);
  const missing = names.filter((n) => !existsSync(join(migrationsDir, n)));
  if (missing.length) {
    throw new EmbeddedDbError('embedded_copy_unknown_migrations', `the database to copy was written by a newer svc (it has migrations this version lacks: ${missing.join(', ')}); start that version instead.`);
  }
  if ((await appliedMigrations(target)).length) throw new EmbeddedDbError('embedded_copy_target_not_empty', 'the database to copy into already holds a schema.');
  await target.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const name of names) {
    const sql = readFileSync(join(migrationsDir, name), 'utf8');
    await target.tx(async (q) => {
      await q.exec(sql);
      await q.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
    });
  }
}

/** Partitions the source created after its migrations (by date, by project): created alike on the target. */
async function applyPartitions(source: Db, target: Db): Promise<void> {
  const parts = await source.query<{ schema: string; name: string; parent_schema: string; parent: string; bound: string; depth: number }>(
    `WITH RECURSIVE p AS (
       SELECT i.inhrelid AS oid, i.inhparent AS parent, 1 AS depth FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE c.relispartition
       UNION ALL SELECT p.oid, i.inhparent, p.depth + 1 FROM p JOIN pg_inherits i ON i.inhrelid = p.parent)
     SELECT n.nspname AS schema, c.relname AS name, pn.nspname AS parent_schema, pc.relname AS parent,
            pg_get_expr(c.relpartbound, c.oid) AS bound, max(p.depth) AS depth
       FROM p JOIN pg_class c ON c.oid = p.oid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_inherits i ON i.inhrelid = c.oid JOIN pg_class pc ON pc.oid = i.inhparent JOIN pg_namespace pn ON pn.oid = pc.relnamespace
      GROUP BY 1, 2, 3, 4, 5 ORDER BY depth, 1, 2`,
  );
  for (const p of parts.rows) {
    const exists = await target.query<{ ok: boolean }>('SELECT to_regclass($1) IS NOT NULL AS ok', [qualified(p.schema, p.name)]);
    if (exists.rows[0].ok) continue;
    await target.exec(`CREATE TABLE ${qualified(p.schema, p.name)} PARTITION OF ${qualified(p.parent_schema, p.parent)} ${p.bound}`);
  }
}

/** Columns the target accepts values for (generated ones are computed again). */
async function writableColumns(q: Queryable, t: Table): Promise<string[]> {
  const r = await q.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum`,
    [qualified(t.schema, t.name)],
  );
  return r.rows.map((x) => x.name);
}

async function copyTable(source: Db, target: Queryable, t: Table, progress: (msg: string) => void): Promise<number> {
  const name = qualified(t.schema, t.name);
  const cols = await writableColumns(target, t);
  const insert = `INSERT INTO ${name} (${cols.map(ident).join(', ')}) OVERRIDING SYSTEM VALUE
    SELECT ${cols.map((c) => `(r).${ident(c)}`).join(', ')} FROM (SELECT x::${name} AS r FROM unnest($1::text[]) AS x) s`;
  return source.tx(async (src) => {
    await src.exec(`DECLARE svc_copy NO SCROLL CURSOR FOR SELECT t::text AS row FROM ${name} t`);
    let copied = 0;
    let next = 100_000;
    for (;;) {
      const batch = await src.query<{ row: string }>(`FETCH ${BATCH} FROM svc_copy`);
      if (batch.rows.length === 0) break;
      await target.query(insert, [batch.rows.map((r) => r.row)]);
      copied += batch.rows.length;
      // A long table says it is moving.
      if (copied >= next) {
        progress(`copying ${shown(t)}: ${copied} rows so far`);
        next += 100_000;
      }
    }
    await src.exec('CLOSE svc_copy');
    return copied;
  });
}

async function copySequences(source: Db, target: Queryable): Promise<void> {
  const seqs = await source.query<{ schema: string; name: string; last_value: string | number | null }>(
    'SELECT schemaname AS schema, sequencename AS name, last_value::text AS last_value FROM pg_sequences ORDER BY 1, 2',
  );
  for (const s of seqs.rows) {
    if (s.last_value === null) continue;
    await target.query('SELECT setval($1::regclass, $2::bigint, true)', [qualified(s.schema, s.name), String(s.last_value)]);
  }
}

async function counts(q: Queryable, ts: Table[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of ts) {
    const r = await q.query<{ n: string | number }>(`SELECT count(*)::text AS n FROM ${qualified(t.schema, t.name)}`);
    out.set(shown(t), Number(r.rows[0].n));
  }
  return out;
}

/** Copies source into an empty target (see above); throws unless every table's row count matches afterwards. */
export async function copyDatabase(source: Db, target: Db, migrationsDir: string, progress: (msg: string) => void): Promise<CopyReport> {
  progress('copying the schema (the same migrations)');
  await applySchema(source, target, migrationsDir);
  await applyPartitions(source, target);
  const from = await tables(source);
  const to = new Set((await tables(target)).map((t) => qualified(t.schema, t.name)));
  const absent = from.filter((t) => !to.has(qualified(t.schema, t.name)));
  if (absent.length) {
    throw new EmbeddedDbError('embedded_copy_unknown_tables', `tables of the source that no migration creates: ${absent.map(shown).join(', ')}; nothing was changed.`);
  }
  const report: CopyReport = { tables: [], rows: 0 };
  await target.tx(async (q) => {
    await q.exec('SET LOCAL session_replication_role = replica');
    // Rows a migration seeded are in the source too (or were removed there): the source's rows are the truth.
    if (from.length) await q.exec(`TRUNCATE ${from.map((t) => qualified(t.schema, t.name)).join(', ')}`);
    for (const t of from) {
      const rows = await copyTable(source, q, t, progress);
      report.tables.push({ table: shown(t), rows });
      report.rows += rows;
      if (rows) progress(`copied ${shown(t)}: ${rows} row${rows === 1 ? '' : 's'}`);
    }
    await copySequences(source, q);
  });
  const views = await target.query<{ name: string }>(`SELECT format('%I.%I', schemaname, matviewname) AS name FROM pg_matviews`);
  for (const v of views.rows) await target.exec(`REFRESH MATERIALIZED VIEW ${v.name}`);

  progress('verifying row counts table by table');
  const [a, b] = [await counts(source, from), await counts(target, from)];
  const wrong = [...a].filter(([t, n]) => b.get(t) !== n).map(([t, n]) => `${t}: ${n} in the source, ${b.get(t)} copied`);
  if (wrong.length) throw new EmbeddedDbError('embedded_copy_mismatch', `the copy does not match the source (${wrong.join('; ')}); the source was left as it was.`);
  progress(`verified: ${from.length} tables, ${report.rows} rows, every count matches`);
  return report;
}
