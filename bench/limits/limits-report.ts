/** The limits benchmark's figures as a markdown subsection of the Gateway section of docs/performance.md. */
import { writePerformanceSection } from '../performance-doc.ts';
import { f0, f2, median, spread } from '../report-format.ts';

export interface LimitsSample {
  target: 'no limits' | 'all four limits';
  stream: boolean;
  round: number;
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerReq: number;
  /** Redis server CPU per request (server-wide). */
  redisCpuUsPerReq: number;
  errors: number;
}

export interface RoundTrips {
  requests: number;
  commands: Record<string, number>;
}

export interface LimitsReportInput {
  samples: LimitsSample[];
  trips: { free: RoundTrips; limited: RoundTrips };
  machine: string;
  rounds: number;
  durationMs: number;
  concurrency: number;
  date: string;
}

const perRequest = (t: RoundTrips) => {
  const total = Object.values(t.commands).reduce((a, b) => a + b, 0);
  const by = Object.entries(t.commands).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / t.requests).toFixed(3)}`).join(', ');
  return `${(total / t.requests).toFixed(3)}${by ? ` (${by})` : ''}`;
};

export function renderLimitsReport(r: LimitsReportInput): string {
  const lines = ['### Gateway: key limits through Redis', ''];
  lines.push(`Measured ${r.date} with \`npm run bench -- gateway-limits\`: one \`--role proxy\` gateway process on Redis, the same style (chat → chat) through the fast fake upstream, a key without limits against a key with all four limits set (requests per minute and per day, tokens and dollars per month; high enough never to refuse), ${r.rounds} rounds of ${r.durationMs / 1000} s per target at concurrency ${r.concurrency}, alternating.`);
  lines.push(`Machine: ${r.machine}.`, '');
  lines.push('Medians over the rounds, with the range (min–max). CPU is user+system time per request of the gateway process, and of the Redis server (server-wide: anything else using that Redis counts too).', '');
  lines.push('| target | mode | req/s | p50 ms | p99 ms | gateway CPU µs/req | Redis CPU µs/req | errors |', '|---|---|---|---|---|---|---|---|');
  const notes: string[] = [];
  for (const stream of [false, true]) {
    const mode = stream ? 'streamed' : 'JSON';
    for (const target of ['no limits', 'all four limits'] as const) {
      const ss = r.samples.filter((s) => s.stream === stream && s.target === target);
      if (ss.length === 0) continue;
      lines.push(`| ${target} | ${mode} | ${spread(ss.map((s) => s.rps), f0)} | ${spread(ss.map((s) => s.p50), f2)} | ${spread(ss.map((s) => s.p99), f2)} | ${spread(ss.map((s) => s.cpuUsPerReq), f0)} | ${spread(ss.map((s) => s.redisCpuUsPerReq), f0)} | ${ss.reduce((n, s) => n + s.errors, 0)} |`);
    }
    const free = median(r.samples.filter((s) => s.stream === stream && s.target === 'no limits').map((s) => s.rps));
    const limited = median(r.samples.filter((s) => s.stream === stream && s.target === 'all four limits').map((s) => s.rps));
    const cpu = (t: string, f: (s: LimitsSample) => number) => median(r.samples.filter((s) => s.stream === stream && s.target === t).map(f));
    const freeCpu = cpu('no limits', (s) => s.cpuUsPerReq + s.redisCpuUsPerReq);
    const limitedCpu = cpu('all four limits', (s) => s.cpuUsPerReq + s.redisCpuUsPerReq);
    notes.push(`${mode}: with all four limits the gateway keeps ${((limited / free) * 100).toFixed(0)} % of its req/s without limits (target ≥ 70 %); by CPU per request (gateway + Redis, what bounds req/s on a saturated machine) ${((freeCpu / limitedCpu) * 100).toFixed(0)} %.`);
  }
  lines.push('', ...notes.map((n) => `- ${n}`));
  lines.push(`- Redis commands per request, counted by a relay in front of Redis on a second gateway process (${r.trips.limited.requests} calls each, 10 at a time): all four limits ${perRequest(r.trips.limited)}; no limits ${perRequest(r.trips.free)}. Each command is one round trip. A metered call alone makes two (a reserve script before it, a settle after it); the reserves and settles of one event-loop turn leave as one script per team and month, which is why the figure is below one under load. The first metered call of a key in a month on a node, and one every 10 minutes after that, adds a seed script.`);
  return lines.join('\n');
}

/** Replaces this subsection of docs/performance.md; placed after the Gateway section when new. */
export function writeLimitsSection(root: string, report: string): void {
  writePerformanceSection(root, 'gateway-limits', report, 'gateway');
}
