/**
 * Error-ingest benchmark (issue 6): envelopes of a realistic 5 KB browser error event, gzip, each with its own
 * event id, posted at a fixed concurrency to
 *   (a) the null endpoint (decompress, parse, acknowledge: the machine's speed that day),
 *   (b) svc on the embedded database (PGlite in a temporary directory, in-memory counters),
 *   (c) svc on real Postgres (a fresh database on DATABASE_URL; Redis counters when REDIS_URL is set).
 * svc runs as its own `--role all` process. For (b) and (c): accepted events/s, p50/p99 of the 200 answers, and
 * how many events reached the database (sum of the issues' counts) once the writer caught up, and how long that
 * took after the load stopped. "Sustained" = stored events / (load time + catch-up time).
 *
 * Options: --seconds S (15; use 60 for the sustained figure), --concurrency C (32), --embedded-seconds S (the
 * embedded run, default the same as --seconds), --skip-embedded, --write (update docs/performance.md),
 * --cpu-prof DIR (svc writes a V8 CPU profile per thread into DIR when it stops: open it in Chrome's DevTools).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchSuite } from '../run.ts';
import { freshDatabase } from '../fresh-database.ts';
import { numberOption } from '../options.ts';
import { randomHex } from '../../core/ids.ts';
import { ADMIN, SECRET, benchProject, waitStored } from '../ingest/svc-api.ts';
import { cpuMs, matchingCpuMs, peakRssMb, startChild, type Child } from '../ingest/child-process.ts';
import { envelopeFactory } from '../ingest/event-fixture.ts';
import { percentile, runLoad } from '../ingest/load.ts';
import { describeIngestMachine, renderIngestReport, writeIngestSection, type IngestRow } from '../ingest/report.ts';

const opt = numberOption;

interface Target {
  name: string;
  env: Record<string, string>;
  seconds: number;
  /** Node options put before main.js (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

async function runTarget(t: Target, concurrency: number): Promise<IngestRow> {
  const factory = envelopeFactory();
  const svc = await startChild([...(t.nodeArgs ?? []), 'main.js', 'serve', '--role', 'all'], { ...t.env, PORT: '0' });
  try {
    const base = `http://127.0.0.1:${svc.port}`;
    const project = await benchProject(base);
    const load = (ms: number) => runLoad({ origin: base, path: project.path, headers: project.headers, body: factory.body, concurrency, durationMs: ms });
    const warm = await load(2000);
    // Postgres: the backends connected to the bench's own database (other work on the machine is not counted;
    // the WAL writer and the checkpointer, shared by every database, are left out).
    const dbName = t.env.DATABASE_URL ? new URL(t.env.DATABASE_URL).pathname.slice(1) : '';
    const backends = new RegExp(`^postgres: (?:\\S+: )?\\S+ ${dbName} `);
    const cpu0 = cpuMs(svc.pid);
    const others0 = { postgres: matchingCpuMs(backends), redis: matchingCpuMs(/^redis-server/), loader: process.cpuUsage() };
    const r = await load(t.seconds * 1000);
    const cpu = cpuMs(svc.pid) - cpu0;
    const share = (ms: number) => ms / 10 / r.seconds;
    const loaderUs = process.cpuUsage(others0.loader);
    const split = {
      svc: share(cpu), loader: share((loaderUs.user + loaderUs.system) / 1000),
      ...(t.env.DATABASE_URL ? { postgres: share(matchingCpuMs(backends) - others0.postgres) } : {}),
      ...(t.env.REDIS_URL ? { redis: share(matchingCpuMs(/^redis-server/) - others0.redis) } : {}),
    };
    const accepted = warm.ok + r.ok;
    const { stored, catchUpSeconds: catchUp } = await waitStored(base, project.id, accepted, performance.now());
    const row: IngestRow = {
      target: t.name, seconds: r.seconds, concurrency, acceptedPerSec: r.ok / r.seconds, p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99),
      accepted, stored, catchUpSeconds: catchUp, sustainedPerSec: (r.ok) / (r.seconds + catchUp), refused: r.statuses, errors: r.errors,
      cpuPercent: (cpu / 10) / r.seconds, cpuUsPerEvent: (cpu * 1000) / r.ok, peakRssMb: peakRssMb(svc.pid),
      eventBytes: factory.eventBytes, bodyBytes: factory.bodyBytes, cpuSplit: split,
    };
    process.stdout.write(`${t.name}: ${row.acceptedPerSec.toFixed(0)} accepted/s, p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms, stored ${stored}/${accepted} after ${catchUp.toFixed(1)} s, statuses ${JSON.stringify(r.statuses)}, errors ${r.errors}\n`);
    return row;
  } finally {
    await svc.stop();
  }
}

async function runNull(seconds: number, concurrency: number): Promise<IngestRow> {
  const factory = envelopeFactory();
  const child: Child = await startChild(['bench/ingest/null-endpoint.ts', '0'], {});
  try {
    const load = (ms: number) => runLoad({ origin: `http://127.0.0.1:${child.port}`, path: '/api/1/envelope/', headers: { 'content-encoding': 'gzip', 'content-type': 'application/x-sentry-envelope' }, body: factory.body, concurrency, durationMs: ms });
    await load(1000);
    const cpu0 = cpuMs(child.pid);
    const r = await load(seconds * 1000);
    const cpu = cpuMs(child.pid) - cpu0;
    process.stdout.write(`null endpoint: ${(r.ok / r.seconds).toFixed(0)} acknowledged/s, p50 ${percentile(r.latencies, 50).toFixed(1)} ms\n`);
    return {
      target: 'null endpoint (decompress, parse, acknowledge)', seconds: r.seconds, concurrency, acceptedPerSec: r.ok / r.seconds,
      p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99), accepted: r.ok, stored: NaN, catchUpSeconds: NaN, sustainedPerSec: NaN,
      refused: r.statuses, errors: r.errors, cpuPercent: (cpu / 10) / r.seconds, cpuUsPerEvent: (cpu * 1000) / r.ok, peakRssMb: peakRssMb(child.pid),
      eventBytes: factory.eventBytes, bodyBytes: factory.bodyBytes,
    };
  } finally {
    await child.stop();
  }
}

export const suite: BenchSuite = {
  name: 'ingest',
  description: 'error ingest: 5 KB gzip envelopes to a null endpoint, svc on the embedded database and on Postgres',
  async run(args) {
    const seconds = opt(args, 'seconds', 15);
    const embeddedSeconds = opt(args, 'embedded-seconds', seconds);
    const concurrency = opt(args, 'concurrency', 32);
    const profileDir = args.includes('--cpu-prof') ? args[args.indexOf('--cpu-prof') + 1] : undefined;
    const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    // The default log level: a request log line per envelope, as a node writes it unless told otherwise.
    const base = { SVC_ADMIN_TOKEN: ADMIN, SVC_SECRET_KEY: SECRET, LOG_LEVEL: 'info', NODE_ENV: 'production' };
    const rows: IngestRow[] = [await runNull(Math.min(seconds, 10), concurrency)];
    if (!args.includes('--skip-embedded')) {
      const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-ingest-'));
      try {
        rows.push(await runTarget({ name: 'svc, embedded database', env: { ...base, SVC_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' }, seconds: embeddedSeconds, nodeArgs }, concurrency));
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    const databaseUrl = process.env.DATABASE_URL || undefined;
    if (databaseUrl) {
      const db = await freshDatabase(databaseUrl, 'svc_bench_ingest');
      const redis: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, SVC_REDIS_PREFIX: `bench-${randomHex(4)}:` } : {};
      try {
        rows.push(await runTarget({ name: `svc, Postgres${redis.REDIS_URL ? ' + Redis' : ''}`, env: { ...base, DATABASE_URL: db.url, ...redis }, seconds, nodeArgs }, concurrency));
      } finally {
        await db.drop();
      }
    } else {
      process.stdout.write('DATABASE_URL is not set: the Postgres run is skipped.\n');
    }
    const machine = await describeIngestMachine(databaseUrl, process.env.REDIS_URL);
    const report = renderIngestReport({ rows, machine, date: new Date().toISOString().slice(0, 10) });
    process.stdout.write(`\n${report}\n`);
    if (args.includes('--write')) writeIngestSection(report);
  },
};
