/**
 * What metrics and request logs cost per gateway call: `npm run bench -- gateway --metrics-cost [--rounds N]
 * [--seconds S] [--concurrency C] [--write]`.
 *
 * Three `--role proxy` nodes on one database serve the same call (chat → chat, bytes passed through; JSON and
 * streamed): metrics off (SVC_METRICS=off), metrics on (the default), and metrics on with a request log line for
 * every call (LOG_LEVEL=info, written to a pipe the bench drains). They are loaded one after the other, in an order
 * that rotates every round; the CPU each node used per call comes from the kernel's counters (the schedstat run
 * time of each of its threads, in ns), so other work on the machine changes it far less than it changes req/s. A
 * cost is the median over rounds of the per-round difference with the metrics-off node.
 *
 * With --control the third node is a second metrics-off node: its difference is what two identical nodes differ by.
 * With --together the three nodes are loaded at the same time in each round instead (the runs of a round then see
 * the same machine, at the price of sharing it with each other).
 *
 * Also, in process: the observations a gateway call makes (one call record, one request count), timed over a
 * million calls, which the end-to-end difference cannot resolve below a microsecond or so.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '../../core/ids.ts';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { NodeMetrics } from '../../core/metrics/node-metrics.ts';
import { RequestObserver } from '../../core/http/request-observer.ts';
import type { GatewayCallFacts } from '../../core/metrics/gateway-metrics.ts';
import { freshDatabase } from '../fresh-database.ts';
import { writePerformanceSection } from '../performance-doc.ts';
import { f2, median, spread } from '../report-format.ts';
import { runLoad } from './load.ts';
import { api, ROOT, startChild, type Child } from './processes.ts';

const ADMIN = `bench-admin-${randomHex(8)}`;
const SECRET = `bench-secret-${randomHex(16)}`;
const ARMS = ['metrics off', 'metrics on', 'metrics on + request log'] as const;
type Arm = (typeof ARMS)[number];

/**
 * CPU time of `pid` in µs, summed over its threads from /proc/<pid>/task/<tid>/schedstat (nanoseconds on a CPU):
 * /proc/<pid>/stat counts in 10 ms ticks, too coarse for a few µs per call over a few seconds.
 */
function cpuUs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1000;
}

const opt = (args: string[], name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
};

/**
 * What a node with metrics does for one gateway call, in process: the request observer's start and end of the
 * request (on a real fastify request and reply) and the call's record; ns of CPU per call over a million calls.
 */
async function inProcessNs(): Promise<number> {
  const m = new NodeMetrics({ enabled: true });
  const record: GatewayCallFacts = {
    model: 'gpt-4o-mini', servedModel: 'gpt-4o-mini', upstreamStyle: 'chat', accountId: 'acc_1', status: 200, errorCode: null,
    latencyMs: 4.2, ttfbMs: 1.1, stream: true, inputTokens: 12, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.00002,
  };
  const app = Fastify();
  let seen: { req: FastifyRequest; reply: FastifyReply } | undefined;
  app.post('/v1/chat/completions', { config: { style: 'chat' } }, async (req, reply) => {
    seen = { req, reply };
    return { ok: true };
  });
  await app.inject({ method: 'POST', url: '/v1/chat/completions', payload: {} });
  await app.close();
  if (!seen) throw new Error('the route did not run');
  const { req, reply } = seen;
  const observer = new RequestObserver({ metrics: m.http, sample: 0 });
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      observer.incomingRequest(req, reply);
      m.gateway.call(record);
      observer.requestCompleted(null, req, reply);
    }
  };
  run(100_000);
  const n = 1_000_000;
  const t0 = process.cpuUsage();
  run(n);
  const t = process.cpuUsage(t0);
  return ((t.user + t.system) * 1000) / n;
}

export async function measureMetricsCost(args: string[]): Promise<void> {
  const rounds = opt(args, 'rounds', 7);
  const durationMs = opt(args, 'seconds', 5) * 1000;
  const concurrency = opt(args, 'concurrency', 50);
  const together = args.includes('--together');
  const control = args.includes('--control');
  const databaseUrl = process.env.DATABASE_URL || undefined;
  // The embedded database serves one process: three nodes need a real Postgres.
  if (!databaseUrl) throw new Error('--metrics-cost needs DATABASE_URL (three nodes share the database)');
  const db = await freshDatabase(databaseUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const env: Record<string, string> = {
    SVC_ADMIN_TOKEN: ADMIN, SVC_SECRET_KEY: SECRET, LOG_LEVEL: 'warn', NODE_ENV: 'production', SVC_DATA_DIR: dataDir,
    DATABASE_URL: db.url,
  };
  const children: Child[] = [];
  try {
    const upstream = await startChild(['bench/gateway/fast-upstream.ts', '0']);
    children.push(upstream);
    const setup = await startChild(['main.js', 'serve', '--role', 'all'], { ...env, PORT: '0' }, 120_000);
    let key: string;
    try {
      const base = `http://127.0.0.1:${setup.port}`;
      await api(base, ADMIN, 'POST', '/api/v1/teams', { name: 'bench' });
      key = (await api(base, ADMIN, 'POST', '/api/v1/keys', { name: 'bench' }, { 'x-svc-team': 'bench' })).key as string;
      await api(base, ADMIN, 'POST', '/api/v1/accounts', { name: 'openai', provider: 'openai', api_key: 'sk-bench-openai-0123456789', base_url: `http://127.0.0.1:${upstream.port}/v1`, models: ['gpt-4o-mini'] });
    } finally {
      await setup.stop();
    }
    const armEnv: Record<Arm, Record<string, string>> = {
      'metrics off': { SVC_METRICS: 'off' },
      'metrics on': {},
      'metrics on + request log': control ? { SVC_METRICS: 'off' } : { LOG_LEVEL: 'info', SVC_REQUEST_LOG_SAMPLE: '1' },
    };
    const nodes = {} as Record<Arm, Child>;
    for (const arm of ARMS) {
      nodes[arm] = await startChild(['main.js', 'serve', '--role', 'proxy'], { ...env, ...armEnv[arm], PORT: '0', SVC_DATA_DIR: mkdtempSync(join(dataDir, 'n-')) }, 120_000);
      children.push(nodes[arm]);
    }
    const body = (stream: boolean) => JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'Tell me about foxes.' }] });
    const load = (arm: Arm, stream: boolean, ms: number) => runLoad({
      origin: `http://127.0.0.1:${nodes[arm].port}`, path: '/v1/chat/completions', body: body(stream),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, concurrency, durationMs: ms,
    });
    for (const arm of ARMS) for (const stream of [false, true]) await load(arm, stream, 2000);
    const cpu: Record<string, number[]> = {};
    const loads: number[] = [];
    // One run: the node's CPU per call answered.
    const measure = async (round: number, arm: Arm, stream: boolean) => {
      const before = cpuUs(nodes[arm].pid);
      const r = await load(arm, stream, durationMs);
      const us = r.requests > 0 ? (cpuUs(nodes[arm].pid) - before) / r.requests : NaN;
      (cpu[`${arm}|${stream}`] ??= []).push(us);
      process.stdout.write(`round ${round + 1} ${arm}${stream ? ' stream' : ''}: ${(r.requests / r.seconds).toFixed(0)} req/s, ${us.toFixed(1)} µs CPU/call, errors ${r.errors}\n`);
    };
    for (let round = 0; round < rounds; round++) {
      const order = ARMS.map((_, i) => ARMS[(i + round) % ARMS.length]);
      for (const stream of [false, true]) {
        if (together) await Promise.all(ARMS.map((arm) => measure(round, arm, stream)));
        else for (const arm of order) await measure(round, arm, stream);
      }
      loads.push(loadavg()[0]);
    }
    const report = renderCost(cpu, { rounds, durationMs, concurrency, together, control }, await inProcessNs(), loads);
    process.stdout.write(`\n${report}\n`);
    if (args.includes('--write')) writePerformanceSection(ROOT, 'gateway-metrics', report, 'gateway');
  } finally {
    for (const c of children.reverse()) await c.stop();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Run {
  rounds: number;
  durationMs: number;
  concurrency: number;
  together: boolean;
  control: boolean;
}

function renderCost(cpu: Record<string, number[]>, run: Run, ns: number, loads: number[]): string {
  const { rounds, durationMs, concurrency, together, control } = run;
  // --control: the third node is a second metrics-off node, so its difference shows what two identical nodes differ by.
  const name = (a: Arm) => (control && a === 'metrics on + request log' ? 'metrics off, second node' : a);
  const diff = (arm: Arm, stream: boolean) => cpu[`${arm}|${stream}`].map((v, i) => v - cpu[`metrics off|${stream}`][i]);
  const rows = [false, true].map((stream) =>
    `| ${stream ? 'streamed' : 'JSON'} | ${ARMS.map((a) => spread(cpu[`${a}|${stream}`], f2)).join(' | ')} | ${spread(diff('metrics on', stream), f2)} | ${spread(diff('metrics on + request log', stream), f2)} |`);
  return [
    '### Gateway: what metrics and request logs cost',
    '',
    `\`npm run bench -- gateway --metrics-cost${together ? ' --together' : ''}${control ? ' --control' : ''}\`, ${new Date().toISOString().slice(0, 10)}: three \`--role proxy\` nodes (metrics off, metrics on,`,
    `${control ? 'and a second metrics-off node as a control' : 'metrics on with a request log line per call at info'}), ${rounds} rounds of ${durationMs / 1000} s per node and call kind at ${concurrency}`,
    together
      ? 'connections each, the three nodes loaded at the same time; chat → chat through the fast fake upstream. CPU per call'
      : 'connections, one node after the other in an order rotating each round; chat → chat through the fast fake upstream. CPU per call',
    'is the node\'s on-CPU time (schedstat of all its threads) over the calls it answered: median (min–max) over rounds. The',
    'differences are per round against the metrics-off node, then the median. The machine is shared: 1-minute load',
    `average ${f2(median(loads))} (${f2(Math.min(...loads))}–${f2(Math.max(...loads))}) over the rounds.`,
    '',
    `| call | ${ARMS.map((a) => `${name(a)}, µs CPU/call`).join(' | ')} | metrics cost, µs | ${control ? 'control difference' : 'metrics + log cost'}, µs |`,
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `In process, what a node with metrics does for one call (the request observer's start and end of the request on`,
    `a real fastify request and reply, and the call's record; label cells resolved once) takes ${ns.toFixed(0)} ns of CPU (a`,
    'million calls timed). Besides, the process metrics run an event-loop delay monitor and a GC observer, whose',
    'cost does not grow with calls.',
  ].join('\n');
}
