/** The ingest benchmark's figures as Markdown, and the "Error ingest" section of docs/performance.md. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
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
  peakRssMb: number;
  eventBytes: number;
  bodyBytes: number;
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
    `${redisUrl ? ', Redis (local)' : ''}; the load generator, svc and the database share the machine`;
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

export function renderIngestReport(r: { rows: IngestRow[]; machine: string; date: string }): string {
  const first = r.rows[0];
  const lines = [
    `Measured ${r.date} with \`npm run bench -- ingest\` on ${r.machine}.`,
    `Envelopes of one ${fmt(first.eventBytes / 1024, 1)} KB browser error event (${fmt(first.bodyBytes / 1024, 1)} KB gzip), a fresh event id each, ` +
      `50 issues, ${first.concurrency} concurrent connections.`,
    '',
    '| target | load | accepted/s | p50 ms | p99 ms | accepted | in the database | catch-up after load | sustained/s | svc CPU | peak RSS |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const x of r.rows) {
    const lost = Number.isFinite(x.stored) ? (x.stored >= x.accepted ? ' (all)' : ` (${x.accepted - x.stored} missing)`) : '';
    lines.push(`| ${x.target} | ${fmt(x.seconds)} s | ${fmt(x.acceptedPerSec)} | ${fmt(x.p50, 1)} | ${fmt(x.p99, 1)} | ${x.accepted} | ${fmt(x.stored)}${lost} | ` +
      `${Number.isFinite(x.catchUpSeconds) ? `${fmt(x.catchUpSeconds, 1)} s` : '–'} | ${fmt(x.sustainedPerSec)} | ${fmt(x.cpuPercent)} % | ${fmt(x.peakRssMb)} MB |`);
  }
  const refusals = r.rows.filter((x) => Object.keys(x.refused).some((k) => k !== '200') || x.errors > 0);
  if (refusals.length) {
    lines.push('', `Refusals: ${refusals.map((x) => `${x.target}: ${JSON.stringify(x.refused)}${x.errors ? `, ${x.errors} transport errors` : ''}`).join('; ')}.`);
  }
  return lines.join('\n');
}

const SECTION = '## Error ingest';

/** Replaces the "Error ingest" section's figures (from its "### Latest run" heading to the next section). */
export function writeIngestSection(report: string): void {
  const file = join(ROOT, 'docs', 'performance.md');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Performance\n';
  const block = `### Latest run\n\n${report}\n`;
  const start = text.indexOf(SECTION);
  if (start === -1) {
    writeFileSync(file, `${text.trimEnd()}\n\n${SECTION}\n\n${block}`);
    return;
  }
  const nextSection = text.indexOf('\n## ', start + SECTION.length);
  const end = nextSection === -1 ? text.length : nextSection + 1;
  const section = text.slice(start, end);
  const latest = section.indexOf('### Latest run');
  const updated = latest === -1 ? `${section.trimEnd()}\n\n${block}` : `${section.slice(0, latest)}${block}`;
  writeFileSync(file, text.slice(0, start) + updated + (nextSection === -1 ? '' : '\n') + text.slice(end));
}
