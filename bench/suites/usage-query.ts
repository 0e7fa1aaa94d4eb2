/**
 * GET /api/v1/usage over 30 days, raw usage_records against the rollups (issue 20, point 4): loads N random usage
 * records (--records, default 1,000,000; 10,000,000 for the target) spread over 31 days into a fresh database on
 * DATABASE_URL's server, rolls them up (the first run of the usage-rollups job), then times the usage report's
 * queries (groups, totals, series in one snapshot, as the route runs them) both ways, alternated, and a job run
 * after late rows. `--write` puts the figures into docs/performance.md. The target: under 100 ms at 10 M records.
 *
 * `--database NAME` keeps the loaded database (NAME on the same server) instead of dropping it, and a later run with
 * the same NAME and --records reuses its records (the load takes minutes at 10 M): it removes the late records the
 * earlier run added, rolls everything up again from scratch and measures at the earlier run's "now" (40 minutes into
 * an hour, so that the current hour holds the same share of the records in every run). The job's last run is a
 * minute before the report, and a minute's records are written after it: what the report reads raw in steady state
 * (the job runs every minute and rolls up the current hour so far).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSuite } from '../run.ts';
import pg from 'pg';
import { freshDatabase } from '../fresh-database.ts';
import { writePerformanceSection } from '../performance-doc.ts';
import { f0, f2 } from '../report-format.ts';
import { createUsagePartitions, generateUsageRecords } from '../usage/generate-usage-records.ts';
import { createPgDb } from '../../core/db/pg-db.ts';
import { migrate } from '../../core/db/migrate.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { readUsage, type Group, type UsageFilter } from '../../control-plane/usage/usage-query.ts';
import { rollUpUsage } from '../../control-plane/usage/roll-up-usage.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const CHUNK = 500_000;

const option = (args: string[], name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const quantile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

/** The database NAME on base's server, made when missing and kept afterwards. */
async function keptDatabase(base: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name) || name === 'test') throw new Error(`--database: a lower-case name of its own, not ${name}`);
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount;
  if (!exists) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: async () => {} };
}

interface Loaded {
  records: number;
  now_ms: number;
  load_ms: number;
  late_xid: string | null;
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await fn();
  return [performance.now() - t0, out];
}

export const suite: BenchSuite = {
  name: 'usage-query',
  description: 'usage analytics over 30 days: raw usage records against the hourly/daily rollups (needs DATABASE_URL)',
  async run(args) {
    const base = process.env.DATABASE_URL;
    if (!base) {
      process.stdout.write('skipped: needs DATABASE_URL (a Postgres server; a fresh database is made and dropped)\n');
      return;
    }
    const records = option(args, '--records', 1_000_000);
    const rounds = option(args, '--rounds', 20);
    const rawRounds = option(args, '--raw-rounds', 5);
    const keep = args.includes('--database') ? args[args.indexOf('--database') + 1] : null;
    const fresh = keep ? await keptDatabase(base, keep) : await freshDatabase(base, 'svc_bench_usage');
    const db = createPgDb(fresh.url, 4);
    const load = [loadavg()[0]];
    try {
      await migrate(db, MIGRATIONS_DIR);
      await db.query('CREATE TABLE IF NOT EXISTS bench_usage_loaded (records bigint NOT NULL, now_ms float8 NOT NULL, load_ms float8 NOT NULL, late_xid bigint)');
      let loaded = (await db.query<Loaded>('SELECT records::float8 AS records, now_ms, load_ms, late_xid::text AS late_xid FROM bench_usage_loaded')).rows[0];
      if (loaded && loaded.records !== records) throw new Error(`--database ${keep} holds ${loaded.records} records, not ${records}: drop it or name another`);
      if (loaded?.late_xid) {
        // The late records and the minute's records written after the job's last run (later transactions).
        await db.query('DELETE FROM usage_records WHERE written_xid >= $1::bigint', [loaded.late_xid]);
        await db.query('UPDATE bench_usage_loaded SET late_xid = NULL');
      }
      if (!loaded) {
        await db.query('TRUNCATE usage_records, usage_rollups, usage_rollup_state');
        // "Now" 40 minutes into an hour, whatever the clock says: the current hour's raw records (about 9,000 at 10 M)
        // are the same share of the report in every run.
        const t0 = Math.floor(Date.now() / HOUR) * HOUR + 40 * 60_000;
        await createUsagePartitions(db, t0 - 31 * DAY, t0 + DAY);
        const [ms] = await timed(async () => {
          // Chunk by chunk in time order, as the records of a live table arrive.
          for (let done = 0; done < records; done += CHUNK) {
            const n = Math.min(CHUNK, records - done);
            const at = (k: number) => t0 - 31 * DAY + (31 * DAY * k) / records;
            await generateUsageRecords(db, n, at(done), at(done + n));
            process.stdout.write(`  loaded ${Math.min(records, done + CHUNK)} records\r`);
          }
          // What autovacuum does after a bulk of inserts (statistics, BRIN summaries).
          await db.query('VACUUM ANALYZE usage_records');
        });
        loaded = { records, now_ms: t0, load_ms: ms, late_xid: null };
        await db.query('INSERT INTO bench_usage_loaded (records, now_ms, load_ms) VALUES ($1, $2, $3)', [records, t0, ms]);
      }
      const now = loaded.now_ms;
      const loadMs = loaded.load_ms;
      // The first run of the job: everything before the current hour, from scratch (and the current hour so far).
      await db.query('DELETE FROM usage_rollup_state');
      const [firstRunMs] = await timed(() => rollUpUsage(db, now - 3 * 60_000));
      await db.query('VACUUM ANALYZE usage_rollups');
      const rollupRows = (await db.query<{ period: string; n: number }>(
        "SELECT period, count(*)::int AS n FROM usage_rollups GROUP BY period UNION ALL SELECT 'open ' || period, count(*)::int FROM usage_rollups_open GROUP BY period",
      )).rows;
      // Late rows: a node's journal replayed after a two-hour outage yesterday (10,000 calls), then the job's next run.
      await generateUsageRecords(db, 10_000, now - DAY - 2 * 3_600_000, now - DAY);
      if (keep) await db.query('UPDATE bench_usage_loaded SET late_xid = (SELECT max(written_xid) FROM usage_records)');
      const [lateRunMs, lateRun] = await timed(() => rollUpUsage(db, now - 2 * 60_000));
      // A run with nothing late (it recomputes the current hour so far), the job's last before the report...
      const [idleRunMs] = await timed(() => rollUpUsage(db, now - 60_000));
      const openRecords = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_records WHERE at >= $1', [new Date(Math.floor(now / HOUR) * HOUR)])).rows[0].n;
      // ...and a minute of calls written after it (as many as a minute holds on average), which the report reads raw.
      const minute = Math.round(records / (31 * 1440));
      await generateUsageRecords(db, minute, now - 60_000, now);
      const from = new Date(Math.floor(now / DAY) * DAY - 29 * DAY);
      const f: UsageFilter = { from, to: new Date(now + 1), teams: null, adminTeams: [], userId: null };
      const member: UsageFilter = { ...f, teams: ['team_0', 'team_1'], adminTeams: ['team_1'], userId: 'u_member' };
      const shapes: Array<[string, UsageFilter, Group[]]> = [['group_by=model (superuser)', f, ['model']], ['group_by=key,model (superuser)', f, ['key', 'model']], ['group_by=model (member of 2 teams)', member, ['model']]];
      const rows: string[] = [];
      for (const [name, filter, groups] of shapes) {
        const fast: number[] = [];
        const raw: number[] = [];
        for (let i = 0; i < Math.max(rounds, rawRounds); i++) {
          if (i < rawRounds) raw.push((await timed(() => readUsage(db, filter, groups, 'day', 1000, { rollups: false })))[0]);
          if (i < rounds) fast.push((await timed(() => readUsage(db, filter, groups, 'day', 1000)))[0]);
          load.push(loadavg()[0]);
        }
        const row = `| 30 days, ${name} | ${f0(quantile(raw, 0.5))} / ${f0(quantile(raw, 0.95))} | ${f2(quantile(fast, 0.5))} / ${f2(quantile(fast, 0.95))} |`;
        rows.push(row);
        process.stdout.write(`${row}\n`);
      }
      const pgVersion = (await db.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v;
      const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GB RAM, Node ${process.version}, PostgreSQL ${pgVersion} (local, default settings)`;
      const loadNote = `load average (1 min) during the run ${f2(Math.min(...load))}–${f2(Math.max(...load))} on ${cpus().length} cores (the machine is shared: other work ran beside it)`;
      const body = [
        '## Usage analytics: raw records against rollups',
        '',
        `\`npm run bench -- usage-query --records ${records} --write\`, ${new Date().toISOString().slice(0, 10)}: ${records.toLocaleString('en')} random usage records over 31 days (10 teams × 10 keys, 8 models, 6 accounts), the usage report's queries (groups, totals, daily series in one snapshot, as GET /api/v1/usage runs them) for the last 30 days, raw (${rawRounds} rounds) and from the rollups (${rounds} rounds), alternated. ${machine}; ${loadNote}.`,
        '',
        '| query | raw p50 / p95 ms | rollups p50 / p95 ms |',
        '|---|---|---|',
        ...rows,
        '',
        `Loading took ${f0(loadMs / 1000)} s; the first rollup run (everything before the current hour) ${f2(firstRunMs / 1000)} s, making ${rollupRows.map((r) => `${r.n.toLocaleString('en')} '${r.period}'`).join(', ')} rows; after 10,000 late records (a two-hour outage yesterday replayed) the next run recomputed ${lateRun?.hours ?? 0} hours and ${lateRun?.days ?? 0} days in ${f2(lateRunMs / 1000)} s; a run with nothing late (the current hour's ${openRecords.toLocaleString('en')} records so far, into usage_rollups_open) took ${f2(idleRunMs / 1000)} s. The report reads raw the ${minute.toLocaleString('en')} records (a minute's) written after the job's last run.`,
      ];
      process.stdout.write(`${body.slice(2).join('\n')}\n`);
      if (args.includes('--write')) writePerformanceSection(join(dirname(fileURLToPath(import.meta.url)), '..', '..'), `usage-query-${records >= 10_000_000 ? '10m' : 'records'}`, body.join('\n'));
    } finally {
      await db.close();
      await fresh.drop();
    }
  },
};
