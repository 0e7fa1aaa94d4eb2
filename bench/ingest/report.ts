/** The ingest benchmark's figures as Markdown, and the "Error ingest" section of docs/performance.md. */
import { writePerformanceSection } from '../performance-doc.ts';
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import { ROOT } from './child-process.ts';

export interface IngestRow {
  target: string;
  seconds: number;
  concurrency: number;
  acceptedPerSec: number;
  p50: number;
  p99: number;
  accepted: number;
  stored: number;
  catchUpSeconds: number;
  sustainedPerSec: number;
  refused: Record<number, number>;
  errors: number;
  cpuPercent: number;
  /** svc (or null endpoint) CPU time per accepted event, µs: all its threads. */
  cpuUsPerEvent: number;
  peakRssMb: number;
  eventBytes: number;
  bodyBytes: number;
  /** Shares of one core during the load: svc, the machine's Postgres and Redis processes, the load generator. */
  cpuSplit?: { svc: number; loader: number; postgres?: number; redis?: number };
}

export async function describeIngestMachine(databaseUrl: string | undefined, redisUrl: string | undefined): Promise<string> {
  const cpu = cpus();
  let db = '';
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    db = `, PostgreSQL ${(await c.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version} (local)`;
    await c.end();
  }
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GB RAM, Node ${process.version}${db}` +
    `${redisUrl ? ', Redis (local)' : ''}; the load generator, svc and the database share the machine (load average ${loadavg()[0].toFixed(1)} when the run ended)`;
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

export function renderIngestReport(r: { rows: IngestRow[]; machine: string; date: string }): string {
  const first = r.rows[0];
  const lines = [
    `Measured ${r.date} with \`npm run bench -- ingest\` on ${r.machine}.`,
    `Envelopes of one ${fmt(first.eventBytes / 1024, 1)} KB browser error event (${fmt(first.bodyBytes / 1024, 1)} KB gzip), a fresh event id each, ` +
      `50 issues, ${first.concurrency} concurrent connections.`,
    '',
    '| target | load | accepted/s | p50 ms | p99 ms | accepted | in the database | catch-up after load | sustained/s | svc CPU | CPU µs/event | peak RSS |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const x of r.rows) {
    const lost = Number.isFinite(x.stored) ? (x.stored >= x.accepted ? ' (all)' : ` (${x.accepted - x.stored} missing)`) : '';
    lines.push(`| ${x.target} | ${fmt(x.seconds)} s | ${fmt(x.acceptedPerSec)} | ${fmt(x.p50, 1)} | ${fmt(x.p99, 1)} | ${x.accepted} | ${fmt(x.stored)}${lost} | ` +
      `${Number.isFinite(x.catchUpSeconds) ? `${fmt(x.catchUpSeconds, 1)} s` : '–'} | ${fmt(x.sustainedPerSec)} | ${fmt(x.cpuPercent)} % | ${fmt(x.cpuUsPerEvent)} | ${fmt(x.peakRssMb)} MB |`);
  }
  for (const x of r.rows) {
    if (!x.cpuSplit) continue;
    const c = x.cpuSplit;
    // A share of one core over the accepted events per second: CPU µs per event.
    const perEvent = (share: number) => fmt((share / 100) * 1e6 / x.acceptedPerSec);
    const db = c.postgres === undefined ? '' : `, Postgres ${fmt(c.postgres)} % (${perEvent(c.postgres)} µs/event: the backends of the bench's database)`;
    const redis = c.redis === undefined ? '' : `, Redis ${fmt(c.redis)} % (${perEvent(c.redis)} µs/event; the machine's Redis, shared with any other work)`;
    lines.push('', `CPU during "${x.target}", in shares of one core (of ${cpus().length}): svc ${fmt(c.svc)} % (${perEvent(c.svc)} µs/event)${db}${redis}, ` +
      `load generator ${fmt(c.loader)} %.`);
  }
  for (const x of r.rows) {
    const pgUs = x.cpuSplit?.postgres === undefined ? undefined : (x.cpuSplit.postgres / 100) * 1e6 / x.acceptedPerSec;
    if (pgUs === undefined) continue;
    const mark = (ok: boolean) => (ok ? 'met' : 'missed');
    lines.push('', `Against the targets ("${x.target}"): ${fmt(x.sustainedPerSec)} events/s sustained over ${fmt(x.seconds)} s (target ≥ 4,000 over 60 s: ` +
      `${mark(x.sustainedPerSec >= 4000 && x.seconds >= 59)}), ${x.accepted - Math.min(x.stored, x.accepted)} lost (target 0: ${mark(x.stored >= x.accepted)}), ` +
      `${fmt(x.cpuUsPerEvent)} µs of svc CPU per event (target ≤ 200: ${mark(x.cpuUsPerEvent <= 200)}), ${fmt(pgUs)} µs of Postgres CPU per event ` +
      `(target ≤ 100: ${mark(pgUs <= 100)}).`);
  }
  const refusals = r.rows.filter((x) => Object.keys(x.refused).some((k) => k !== '200') || x.errors > 0);
  if (refusals.length) {
    lines.push('', `Refusals: ${refusals.map((x) => `${x.target}: ${JSON.stringify(x.refused)}${x.errors ? `, ${x.errors} transport errors` : ''}`).join('; ')}.`);
  }
  return lines.join('\n');
}

const INTRO = `## Error ingest

Figures: \`npm run bench -- ingest --write\` (add \`--seconds 60\` for the sustained run, \`--concurrency 50\` for the
issue's configuration; \`DATABASE_URL\` and \`REDIS_URL\` for the Postgres run; \`--cpu-prof DIR\` writes svc's CPU
profiles). The targets, on this 2-core machine with real Postgres, durability on (an event is answered once it is
committed to \`ingest_inbox\`), metrics and request logs on (a log line per envelope at the default level): at least
4,000 events/s sustained for 60 s with nothing lost, at most 200 µs of svc CPU and 100 µs of Postgres CPU per event
(issue 14), and at least 80 % of the events/s of 77397a7, which answered from memory, in alternated runs (issue 11).

What is measured: svc as one \`--role all\` process (HTTP, the ingest fast path, which parses each event once and
prepares it — scrub, normalise, group — on the event loop, and the batch writer) with its database; the load
generator and the database run on the same machine, so the null endpoint's rate (the same HTTP stack decompressing
and parsing the same envelopes, and nothing else) shows how much of the machine was left that day. "In the
database" is the sum of the issues' counts once the writer caught up; "sustained" is that number over the load
time plus the catch-up time. "svc CPU" is the share of one core the process used (all its threads), from the
kernel's per-process counters; "CPU µs/event" is that time per accepted event, the figure that bounds throughput
once the machine is saturated. Postgres CPU is that of the backends connected to the bench's database (the shared
WAL writer and checkpointer are left out); Redis CPU is the machine's Redis, shared with any other work. An
accepted event is never dropped: the queue answers 503 before it would overflow, and a stop drains it.
`;

/** Replaces the ingest block of docs/performance.md (between its markers), or appends it. */
export function writeIngestSection(report: string): void {
  writePerformanceSection(ROOT, 'ingest', `${INTRO}\n### Latest run\n\n${report}`);
}
