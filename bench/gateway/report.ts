/**
 * The gateway benchmark's figures as a markdown section: medians over rounds with the spread (min–max), each ratio
 * to the bare proxy next to its target (issue 14): a metered call at most 1.5× the bare proxy's CPU in svc and 2.0×
 * counting Redis and Postgres, same style; cross style at most 1.8× in svc; req/s at least 70 % of the bare
 * proxy's, JSON and streamed; peak memory under 200 MB (PSS of the process tree) holding 50 streams.
 */
import { f0, f2, median, spread } from '../report-format.ts';

export interface Sample {
  target: string;
  stream: boolean;
  round: number;
  rps: number;
  errors: number;
  p50: number;
  p99: number;
  ttfb50: number;
  /** CPU per call of the target's own process. */
  cpuUsPerReq: number;
  redisUsPerReq: number;
  postgresUsPerReq: number;
}

export interface Memory {
  /** What held the streams (e.g. "svc --role proxy"). */
  what: string;
  peakPssMb: number;
  streams: number;
}

export interface ReportInput {
  samples: Sample[];
  memory: Memory[];
  /** Peak PSS of the gateway over the throughput runs. */
  throughputPssMb: number;
  machine: string;
  load: { start: number; end: number };
  rounds: number;
  durationMs: number;
  concurrency: number;
  nodeOptions?: string;
  date: string;
}

export const BARE = 'bare proxy';
export const METERED_SAME = 'svc metered, same style';
export const METERED_CROSS = 'svc metered, cross style';

const TARGETS = { svcSame: 1.5, allSame: 2.0, svcCross: 1.8, rps: 0.7, pssMb: 200 };

const met = (ok: boolean) => (ok ? 'met' : '**missed**');
const x2 = (r: number) => `${Number.isFinite(r) ? r.toFixed(2) : '–'}×`;

function medians(ss: Sample[]) {
  return {
    rps: median(ss.map((s) => s.rps)),
    cpu: median(ss.map((s) => s.cpuUsPerReq)),
    redis: median(ss.map((s) => s.redisUsPerReq)),
    postgres: median(ss.map((s) => s.postgresUsPerReq)),
    total: median(ss.map((s) => s.cpuUsPerReq + (s.redisUsPerReq || 0) + (s.postgresUsPerReq || 0))),
  };
}

export function renderReport(r: ReportInput): string {
  const lines: string[] = ['## Gateway', ''];
  lines.push(`Measured ${r.date} with \`npm run bench -- gateway\`: ${r.rounds} rounds of ${r.durationMs / 1000} s per target at concurrency ${r.concurrency}, targets alternating within each round; chat client, fake upstream answering at once (same style: chat upstream, bytes passed through; cross style: messages upstream, translated). "Metered" is a key with all four limits set (requests per minute and day, tokens and dollars per month, none reachable), usage recording on (each answer's last byte waits until its usage record is committed), metrics and request logs on (a log line per call at the default level, \`info\`), real Postgres and Redis.`);
  lines.push(`Machine: ${r.machine}.${r.nodeOptions ? ` Gateway started with NODE_OPTIONS="${r.nodeOptions}".` : ''} Load average (1 min) ${r.load.start.toFixed(1)} when the runs began and ${r.load.end.toFixed(1)} when they ended (the bench itself keeps both cores busy: about 2–3).`, '');
  lines.push('Medians over the rounds, with the range (min–max). Latency is until the last byte, TTFB until the first body byte. CPU is user+system time per call: "svc" of the server process (the bare proxy\'s own for its row), "Redis" of the Redis server (server-wide), "Postgres" of the backends connected to the bench\'s database; × is the ratio to the bare proxy.', '');
  const notes: string[] = [];
  for (const stream of [false, true]) {
    const mode = stream ? 'streamed' : 'JSON';
    lines.push(`### ${stream ? 'Streamed (SSE, 10 text deltas)' : 'JSON (non-streamed)'}`, '');
    lines.push('| target | req/s | × bare | p50 ms | p99 ms | TTFB p50 ms | svc CPU µs/call | × bare | Redis µs/call | Postgres µs/call | all CPU × bare | errors |', '|---|---|---|---|---|---|---|---|---|---|---|---|');
    const of = (t: string) => r.samples.filter((s) => s.stream === stream && s.target === t);
    const bare = medians(of(BARE));
    for (const t of [...new Set(r.samples.map((s) => s.target))]) {
      const ss = of(t);
      if (ss.length === 0) continue;
      const m = medians(ss);
      const isBare = t === BARE;
      lines.push(`| ${t} | ${spread(ss.map((s) => s.rps), f0)} | ${isBare ? '' : `${((m.rps / bare.rps) * 100).toFixed(0)} %`} | ${spread(ss.map((s) => s.p50), f2)} | ${spread(ss.map((s) => s.p99), f2)} | ${spread(ss.map((s) => s.ttfb50), f2)} | ${spread(ss.map((s) => s.cpuUsPerReq), f0)} | ${isBare ? '' : x2(m.cpu / bare.cpu)} | ${isBare ? '' : spread(ss.map((s) => s.redisUsPerReq), f0)} | ${isBare ? '' : spread(ss.map((s) => s.postgresUsPerReq), f0)} | ${isBare ? '' : x2(m.total / bare.cpu)} | ${ss.reduce((n, s) => n + s.errors, 0)} |`);
    }
    lines.push('');
    const same = medians(of(METERED_SAME));
    const cross = medians(of(METERED_CROSS));
    notes.push(
      `${mode}, metered same style: svc CPU ${x2(same.cpu / bare.cpu)} the bare proxy's (target ≤ ${TARGETS.svcSame}×: ${met(same.cpu / bare.cpu <= TARGETS.svcSame)}); with Redis and Postgres ${x2(same.total / bare.cpu)} (target ≤ ${TARGETS.allSame}×: ${met(same.total / bare.cpu <= TARGETS.allSame)}); req/s ${((same.rps / bare.rps) * 100).toFixed(0)} % of the bare proxy's (target ≥ ${TARGETS.rps * 100} %: ${met(same.rps / bare.rps >= TARGETS.rps)}).`,
      `${mode}, metered cross style: svc CPU ${x2(cross.cpu / bare.cpu)} the bare proxy's (target ≤ ${TARGETS.svcCross}×: ${met(cross.cpu / bare.cpu <= TARGETS.svcCross)}); req/s ${((cross.rps / bare.rps) * 100).toFixed(0)} % of the bare proxy's.`,
    );
  }
  lines.push('### Targets', '', ...notes.map((n) => `- ${n}`));
  for (const m of r.memory) {
    const target = m.what.startsWith('svc') ? ` (target < ${TARGETS.pssMb} MB: ${met(m.peakPssMb < TARGETS.pssMb)})` : '';
    lines.push(`- Peak memory holding ${r.concurrency} streams open (5 s, ${m.streams} streams of about 1 s each, before the throughput runs), PSS summed over the process tree: ${m.what} ${f0(m.peakPssMb)} MB${target}.`);
  }
  lines.push(`- Peak PSS of the \`--role proxy\` gateway over all the throughput runs: ${f0(r.throughputPssMb)} MB.`, '');
  lines.push('How to read these: the load generator, the fake upstream, the bare proxy, the gateway, Postgres and Redis share the two cores (with whatever else runs on the machine), so req/s and latencies move with the load; CPU per call is the steadier figure, and on a saturated machine it is what bounds req/s. The gateway answers a small JSON call with one write once its usage record is committed, and corks a streamed answer until the end of each event-loop turn; its final event waits for the commit. The bare proxy writes the head and chunks, then the end, separately.');
  return lines.join('\n');
}
