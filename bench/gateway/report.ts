/** The gateway benchmark's figures as a markdown section: medians over rounds, with the spread (min–max). */
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
  cpuUsPerReq: number;
}

export interface ReportInput {
  samples: Sample[];
  rss: { gateway: number; bare: number; held: number; heldStreams: number; heldSmall: number; smallHeap: string };
  machine: string;
  rounds: number;
  durationMs: number;
  concurrency: number;
  nodeOptions?: string;
  date: string;
}


export function renderReport(r: ReportInput): string {
  const lines: string[] = [];
  lines.push('## Gateway', '');
  lines.push(`Measured ${r.date} with \`npm run bench -- gateway\`: ${r.rounds} rounds of ${r.durationMs / 1000} s per target at concurrency ${r.concurrency}, targets alternating within each round.`);
  lines.push(`Machine: ${r.machine}.${r.nodeOptions ? ` Gateway started with NODE_OPTIONS="${r.nodeOptions}".` : ''}`, '');
  lines.push('Medians over the rounds, with the range (min–max) in parentheses. Latency is until the last byte; TTFB is until the first body byte; CPU is the server process\'s user+system time per request (for "direct", the fake upstream\'s own).', '');
  for (const stream of [false, true]) {
    lines.push(`### ${stream ? 'Streamed (SSE, 10 text deltas)' : 'JSON (non-streamed)'}`, '');
    lines.push('| target | req/s | p50 ms | p99 ms | TTFB p50 ms | CPU µs/req | errors |', '|---|---|---|---|---|---|---|');
    const targets = [...new Set(r.samples.filter((s) => s.stream === stream).map((s) => s.target))];
    const bareRps = median(r.samples.filter((s) => s.stream === stream && s.target === 'bare proxy').map((s) => s.rps));
    const bareP50 = median(r.samples.filter((s) => s.stream === stream && s.target === 'bare proxy').map((s) => s.p50));
    const notes: string[] = [];
    for (const t of targets) {
      const ss = r.samples.filter((s) => s.stream === stream && s.target === t);
      lines.push(`| ${t} | ${spread(ss.map((s) => s.rps), f0)} | ${spread(ss.map((s) => s.p50), f2)} | ${spread(ss.map((s) => s.p99), f2)} | ${spread(ss.map((s) => s.ttfb50), f2)} | ${spread(ss.map((s) => s.cpuUsPerReq), f0)} | ${ss.reduce((n, s) => n + s.errors, 0)} |`);
      if (t.startsWith('gateway')) {
        const rps = median(ss.map((s) => s.rps));
        const p50 = median(ss.map((s) => s.p50));
        const share = rps / bareRps;
        const ratio = p50 / bareP50;
        const met = t.includes('cross') ? share >= 0.5 : share >= 0.6 && ratio <= 1.7;
        const target = t.includes('cross') ? 'target ≥ 50 %' : 'target ≥ 60 % and p50 ≤ 1.7×';
        notes.push(`${t}: ${(share * 100).toFixed(0)} % of the bare proxy's req/s, p50 ${ratio.toFixed(2)}× the bare proxy's (${target}: ${met ? 'met' : 'missed'})`);
      }
    }
    lines.push('', ...notes.map((n) => `- ${n}`), '');
  }
  lines.push(
    'How to read these: the load generator, the fake upstream, the bare proxy, the gateway and Postgres share the two cores (with whatever else runs on the machine), so req/s and latencies move from round to round; the CPU per request of each server process is the steadier figure. The gateway answers a JSON call with one write (its length is known) and corks a streamed answer until the end of each event-loop turn (here head, events and end in one write), where the bare proxy writes the head and chunks, then the end, separately.',
    '',
  );
  lines.push(`Peak RSS (VmHWM) of the gateway (\`--role proxy\`): ${r.rss.held.toFixed(0)} MB while holding ${r.concurrency} streams open (5 s, ${r.rss.heldStreams} streams of about 1 s each, before the throughput runs); ${r.rss.gateway.toFixed(0)} MB at the end of the throughput runs. Bare proxy at the end: ${r.rss.bare.toFixed(0)} MB. Target: under 150 MB at 50 concurrent streams: ${r.rss.held < 150 ? 'met' : 'missed'} with Node's defaults; a second gateway process started with \`NODE_OPTIONS=${r.rss.smallHeap}\` (a smaller young generation) peaked at ${r.rss.heldSmall.toFixed(0)} MB holding the same streams (${r.rss.heldSmall < 150 ? 'met' : 'missed'}).`);
  return lines.join('\n');
}
