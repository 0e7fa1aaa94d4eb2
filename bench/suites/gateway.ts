/**
 * Gateway benchmark (issue 3): a fast fake upstream measured (a) directly, (b) through the bare undici proxy and
 * (c) through the gateway with a real key and usage recording on, same style (chat → chat, bytes passed through)
 * and cross style (chat client → messages upstream, translated), JSON and streamed, at a fixed concurrency. The
 * targets alternate over several rounds (the machine is shared and noisy); medians and spreads are reported.
 * The gateway runs as its own `--role proxy` process (set up first by a short-lived `--role all` process on the
 * same database): Postgres from DATABASE_URL in a fresh database, else the embedded one in a temporary directory.
 *
 * Options: --rounds N (3), --seconds S per run (4), --concurrency C (50), --node-options "<flags>" (NODE_OPTIONS of
 * the gateway process, e.g. "--max-semi-space-size=2"), --write (update docs/performance.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchSuite } from '../run.ts';
import { freshDatabase } from '../fresh-database.ts';
import { randomHex } from '../../core/ids.ts';
import { runLoad, percentile } from '../gateway/load.ts';
import { describeMachine } from '../gateway/machine.ts';
import { api, ROOT, startChild, type Child } from '../gateway/processes.ts';
import { cpuMs, peakRssMb } from '../gateway/proc-stats.ts';
import { renderReport, type Sample } from '../gateway/report.ts';
import { writePerformanceSection } from '../performance-doc.ts';
import { measureMetricsCost } from '../gateway/metrics-cost.ts';

const ADMIN = `bench-admin-${randomHex(8)}`;
const SMALL_HEAP = '--max-semi-space-size=2';
const SECRET = `bench-secret-${randomHex(16)}`;

function opt(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
}

function optText(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

async function setUp(env: Record<string, string>, upstream: string): Promise<string> {
  const setup = await startChild(['main.js', 'serve', '--role', 'all'], { ...env, PORT: '0' }, 120_000);
  try {
    const base = `http://127.0.0.1:${setup.port}`;
    await api(base, ADMIN, 'POST', '/api/v1/teams', { name: 'bench' });
    const key = await api(base, ADMIN, 'POST', '/api/v1/keys', { name: 'bench' }, { 'x-svc-team': 'bench' });
    await api(base, ADMIN, 'POST', '/api/v1/accounts', { name: 'openai', provider: 'openai', api_key: 'sk-bench-openai-0123456789', base_url: `${upstream}/v1`, models: ['gpt-4o-mini'] });
    await api(base, ADMIN, 'POST', '/api/v1/accounts', { name: 'openai-slow', provider: 'openai', api_key: 'sk-bench-openai-0123456789', base_url: `${upstream}/slow/v1`, models: ['gpt-4o-slow'] });
    await api(base, ADMIN, 'POST', '/api/v1/accounts', { name: 'anthropic', provider: 'anthropic', api_key: 'sk-ant-bench-0123456789', base_url: upstream, models: ['claude-haiku-4-5'] });
    return key.key as string;
  } finally {
    await setup.stop();
  }
}

export const suite: BenchSuite = {
  name: 'gateway',
  description: 'fake upstream direct vs bare undici proxy vs the gateway (same style, cross style; JSON and streamed)',
  async run(args) {
    // --metrics-cost: what metrics and request logs cost per call, instead of the comparison below.
    if (args.includes('--metrics-cost')) return measureMetricsCost(args);
    const rounds = opt(args, 'rounds', 3);
    const durationMs = opt(args, 'seconds', 4) * 1000;
    const concurrency = opt(args, 'concurrency', 50);
    const databaseUrl = process.env.DATABASE_URL || undefined;
    const db = databaseUrl ? await freshDatabase(databaseUrl) : undefined;
    const dataDir = db ? undefined : mkdtempSync(join(tmpdir(), 'svc-bench-'));
    const env: Record<string, string> = {
      SVC_ADMIN_TOKEN: ADMIN, SVC_SECRET_KEY: SECRET, LOG_LEVEL: 'warn', NODE_ENV: 'production',
      ...(db ? { DATABASE_URL: db.url } : { SVC_DATA_DIR: dataDir as string }),
    };
    const children: Child[] = [];
    try {
      const upstream = await startChild(['bench/gateway/fast-upstream.ts', '0']);
      children.push(upstream);
      const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
      const bare = await startChild(['bench/bare-proxy.ts', '0', upstreamUrl]);
      children.push(bare);
      const key = await setUp(env, upstreamUrl);
      const nodeOptions = optText(args, 'node-options');
      const gateway = await startChild(['main.js', 'serve', '--role', 'proxy'], { ...env, PORT: '0', ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) }, 120_000);
      children.push(gateway);
      const chatBody = (model: string, stream: boolean) => JSON.stringify({ model, stream, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me about foxes.' }] });
      const targets = [
        { name: 'direct', server: upstream, model: 'gpt-4o-mini', auth: {} as Record<string, string> },
        { name: 'bare proxy', server: bare, model: 'gpt-4o-mini', auth: {} },
        { name: 'gateway, same style', server: gateway, model: 'gpt-4o-mini', auth: { authorization: `Bearer ${key}` } },
        { name: 'gateway, cross style', server: gateway, model: 'claude-haiku-4-5', auth: { authorization: `Bearer ${key}` } },
      ];
      const configs = [false, true].flatMap((stream) => targets.map((t) => ({ ...t, stream })));
      const samples: Sample[] = [];
      const load = (c: (typeof configs)[number], ms: number) => runLoad({
        origin: `http://127.0.0.1:${c.server.port}`, path: '/v1/chat/completions', body: chatBody(c.model, c.stream),
        headers: { 'content-type': 'application/json', ...c.auth }, concurrency, durationMs: ms,
      });
      // Memory while holding `concurrency` streams open (each about 1 s long), before any flood.
      const holdStreams = (port: number) => runLoad({
        origin: `http://127.0.0.1:${port}`, path: '/v1/chat/completions', body: chatBody('gpt-4o-slow', true),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, concurrency, durationMs: 5000,
      });
      const held = await holdStreams(gateway.port);
      const heldRss = peakRssMb(gateway.pid);
      // The same with a smaller young generation, V8's main growth under load (an option for memory-tight nodes).
      const small = await startChild(['main.js', 'serve', '--role', 'proxy'], { ...env, PORT: '0', NODE_OPTIONS: SMALL_HEAP }, 120_000);
      await holdStreams(small.port);
      const heldSmallRss = peakRssMb(small.pid);
      await small.stop();
      process.stdout.write(`${concurrency} streams held open: ${held.requests} streams, peak RSS ${heldRss.toFixed(0)} MB\n`);
      for (const c of configs) await load(c, 1000);
      for (let round = 1; round <= rounds; round++) {
        for (const c of configs) {
          const cpu0 = cpuMs(c.server.pid);
          const r = await load(c, durationMs);
          const cpu = cpuMs(c.server.pid) - cpu0;
          samples.push({
            target: c.name, stream: c.stream, round, rps: r.requests / r.seconds, errors: r.errors,
            p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99), ttfb50: percentile(r.ttfbs, 50),
            cpuUsPerReq: r.requests > 0 ? (cpu * 1000) / r.requests : NaN,
          });
          process.stdout.write(`round ${round} ${c.name}${c.stream ? ' stream' : ''}: ${(r.requests / r.seconds).toFixed(0)} req/s, p50 ${percentile(r.latencies, 50).toFixed(2)} ms, errors ${r.errors}\n`);
        }
      }
      const rss = { gateway: peakRssMb(gateway.pid), bare: peakRssMb(bare.pid), held: heldRss, heldStreams: held.requests, heldSmall: heldSmallRss, smallHeap: SMALL_HEAP };
      const machine = await describeMachine(databaseUrl, process.env.REDIS_URL);
      const report = renderReport({ samples, rss, machine, rounds, durationMs, concurrency, nodeOptions, date: new Date().toISOString().slice(0, 10) });
      process.stdout.write(`\n${report}\n`);
      if (args.includes('--write')) writePerformanceSection(ROOT, 'gateway', report);
    } finally {
      for (const c of children.reverse()) await c.stop();
      await db?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
