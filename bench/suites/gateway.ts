/**
 * Gateway benchmark (issue 14): a fast fake upstream through the bare undici proxy (the ceiling for a Node proxy)
 * and through the gateway with a metered key (all four limits) and an unmetered one, same style (chat → chat, bytes
 * passed through) and cross style (chat client → messages upstream, translated), JSON and streamed, at a fixed
 * concurrency, targets alternated over several rounds (the machine is shared and noisy; medians and spreads are
 * reported). Per call: CPU of the gateway, of Redis and of Postgres, req/s, p50/p99, time to first byte; and the
 * peak memory (PSS over the process tree) of `--role proxy` and `--role all` nodes holding 50 streams.
 * The gateway runs as its own `--role proxy` process (set up first by a short-lived `--role all` process on the
 * same database): Postgres from DATABASE_URL in a fresh database, else the embedded one in a temporary directory;
 * Redis from REDIS_URL (else in-memory counters, and no Redis CPU).
 *
 * Options: --rounds N (3), --seconds S per run (4), --concurrency C (50), --node-options "<flags>" (NODE_OPTIONS of
 * the gateway process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"), --only "<text>" (run only the targets whose name
 * contains one of its '|'-separated parts, "json" or "stream" naming the kind, and no memory runs: for profiling one
 * path), --write (update docs/performance.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchSuite } from '../run.ts';
import { freshDatabase } from '../fresh-database.ts';
import { randomHex } from '../../core/ids.ts';
import { runLoad, percentile } from '../gateway/load.ts';
import { describeMachine } from '../gateway/machine.ts';
import { api, ROOT, startChild, type Child } from '../gateway/processes.ts';
import { cpuMs } from '../gateway/proc-stats.ts';
import { samplePss } from '../../test/ingest/support/process-memory.ts';
import { BARE, METERED_CROSS, METERED_SAME, renderReport, type Memory, type Sample } from '../gateway/report.ts';
import { dropRedisPrefix } from '../gateway/redis-prefix.ts';
import { postgresCpuBetween, serverCpu } from '../gateway/server-cpu.ts';
import { writePerformanceSection } from '../performance-doc.ts';
import { measureMetricsCost } from '../gateway/metrics-cost.ts';

const ADMIN = `bench-admin-${randomHex(8)}`;
const SECRET = `bench-secret-${randomHex(16)}`;
/** Every limit set, none reachable in a benchmark run. */
const ALL_LIMITS = { requests_per_minute: 1_000_000, requests_per_day: 1_000_000_000, tokens_per_month: 1_000_000_000_000, dollars_per_month: 10_000_000 };

function opt(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
}

function optText(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Team, accounts, and two keys: one without limits, one with all four. */
async function setUp(env: Record<string, string>, upstream: string): Promise<{ free: string; metered: string }> {
  const setup = await startChild(['main.js', 'serve', '--role', 'all'], { ...env, PORT: '0' }, 120_000);
  try {
    const base = `http://127.0.0.1:${setup.port}`;
    await api(base, ADMIN, 'POST', '/api/v1/teams', { name: 'bench' });
    const free = await api(base, ADMIN, 'POST', '/api/v1/keys', { name: 'bench' }, { 'x-svc-team': 'bench' });
    const metered = await api(base, ADMIN, 'POST', '/api/v1/keys', { name: 'bench-metered', limits: ALL_LIMITS }, { 'x-svc-team': 'bench' });
    await api(base, ADMIN, 'POST', '/api/v1/accounts', { name: 'openai', provider: 'openai', api_key: 'sk-bench-openai-0123456789', base_url: `${upstream}/v1`, models: ['gpt-4o-mini'] });
    await api(base, ADMIN, 'POST', '/api/v1/accounts', { name: 'openai-slow', provider: 'openai', api_key: 'sk-bench-openai-0123456789', base_url: `${upstream}/slow/v1`, models: ['gpt-4o-slow'] });
    // The slow model needs a price: a key with a dollar budget refuses a model it cannot price.
    await api(base, ADMIN, 'PUT', '/api/v1/prices/gpt-4o-slow', { input_per_mtok: 0.15, output_per_mtok: 0.6 });
    await api(base, ADMIN, 'POST', '/api/v1/accounts', { name: 'anthropic', provider: 'anthropic', api_key: 'sk-ant-bench-0123456789', base_url: upstream, models: ['claude-haiku-4-5'] });
    return { free: free.key as string, metered: metered.key as string };
  } finally {
    await setup.stop();
  }
}

const chatBody = (model: string, stream: boolean) => JSON.stringify({ model, stream, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me about foxes.' }] });

export const suite: BenchSuite = {
  name: 'gateway',
  description: 'bare undici proxy vs the gateway, metered and unmetered (same style, cross style; JSON and streamed; CPU, Redis, Postgres, memory)',
  async run(args) {
    // --metrics-cost: what metrics and request logs cost per call, instead of the comparison below.
    if (args.includes('--metrics-cost')) return measureMetricsCost(args);
    if (optText(args, 'only') !== undefined && args.includes('--write')) throw new Error('--only measures part of the table: it cannot be written with --write');
    const rounds = opt(args, 'rounds', 3);
    const durationMs = opt(args, 'seconds', 4) * 1000;
    const concurrency = opt(args, 'concurrency', 50);
    const databaseUrl = process.env.DATABASE_URL || undefined;
    const redisUrl = process.env.REDIS_URL || undefined;
    const db = databaseUrl ? await freshDatabase(databaseUrl) : undefined;
    const dataDir = db ? undefined : mkdtempSync(join(tmpdir(), 'svc-bench-'));
    const prefix = `bench${randomHex(4)}:`;
    const env: Record<string, string> = {
      // The default log level: a request log line per call, as a node writes it unless told otherwise (issue 14
      // measures every default on); the bench drains the gateway's output.
      SVC_ADMIN_TOKEN: ADMIN, SVC_SECRET_KEY: SECRET, LOG_LEVEL: 'info', NODE_ENV: 'production', SVC_REDIS_PREFIX: prefix,
      ...(db ? { DATABASE_URL: db.url } : { SVC_DATA_DIR: dataDir as string }),
    };
    const children: Child[] = [];
    const cpu = await serverCpu(redisUrl, db?.url);
    try {
      const upstream = await startChild(['bench/gateway/fast-upstream.ts', '0']);
      children.push(upstream);
      const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
      const bare = await startChild(['bench/bare-proxy.ts', '0', upstreamUrl]);
      children.push(bare);
      const keys = await setUp(env, upstreamUrl);
      const auth = (key: string) => ({ authorization: `Bearer ${key}` });

      // Memory while holding `concurrency` streams open (each about 1 s long), on fresh processes, before any flood.
      const holdStreams = async (what: string, server: Child, headers: Record<string, string>, model: string, path = '/v1/chat/completions'): Promise<Memory> => {
        const sampler = samplePss(server.pid, 100);
        const held = await runLoad({
          origin: `http://127.0.0.1:${server.port}`, path, body: chatBody(model, true),
          headers: { 'content-type': 'application/json', ...headers }, concurrency, durationMs: 5000,
        });
        if (held.errors > 0) process.stdout.write(`${what}: ${held.errors} of the held streams failed\n`);
        return { what, peakPssMb: sampler.stop(), streams: held.requests };
      };
      const memory: Memory[] = [];
      // --only profiles chosen targets: the memory runs are left out with the rest of the table.
      if (optText(args, 'only') === undefined) {
        for (const role of ['proxy', 'all']) {
          const node = await startChild(['main.js', 'serve', '--role', role], { ...env, PORT: '0' }, 120_000);
          try {
            memory.push(await holdStreams(`svc \`--role ${role}\``, node, auth(keys.metered), 'gpt-4o-slow'));
          } finally {
            await node.stop();
          }
        }
        // The bare proxy passes the path through: the fake upstream's slow streams.
        memory.push(await holdStreams('bare proxy', bare, {}, 'gpt-4o-slow', '/slow/v1/chat/completions'));
        process.stdout.write(`memory holding streams: ${memory.map((m) => `${m.what} ${m.peakPssMb.toFixed(0)} MB`).join(', ')}\n`);
      }

      const nodeOptions = optText(args, 'node-options');
      const gateway = await startChild(['main.js', 'serve', '--role', 'proxy'], { ...env, PORT: '0', ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) }, 120_000);
      children.push(gateway);
      const targets = [
        { name: BARE, server: bare, model: 'gpt-4o-mini', auth: {} as Record<string, string> },
        { name: METERED_SAME, server: gateway, model: 'gpt-4o-mini', auth: auth(keys.metered) },
        { name: METERED_CROSS, server: gateway, model: 'claude-haiku-4-5', auth: auth(keys.metered) },
        { name: 'svc unmetered, same style', server: gateway, model: 'gpt-4o-mini', auth: auth(keys.free) },
        { name: 'svc unmetered, cross style', server: gateway, model: 'claude-haiku-4-5', auth: auth(keys.free) },
      ];
      const only = optText(args, 'only');
      const configs = [false, true].flatMap((stream) => targets.map((t) => ({ ...t, stream })))
        .filter((c) => only === undefined || only.split('|').some((o) => `${c.name} ${c.stream ? 'stream' : 'json'}`.includes(o)));
      const samples: Sample[] = [];
      const load = (c: (typeof configs)[number], ms: number) => runLoad({
        origin: `http://127.0.0.1:${c.server.port}`, path: '/v1/chat/completions', body: chatBody(c.model, c.stream),
        headers: { 'content-type': 'application/json', ...c.auth }, concurrency, durationMs: ms,
      });
      for (const c of configs) await load(c, 1000);
      const startLoad = loadavg()[0];
      const pss = samplePss(gateway.pid, 250);
      for (let round = 1; round <= rounds; round++) {
        for (const c of configs) {
          const [own0, redis0, pg0] = [cpuMs(c.server.pid), cpu.redis(), await cpu.postgres()];
          const r = await load(c, durationMs);
          const [own, redis, pg] = [cpuMs(c.server.pid) - own0, cpu.redis() - redis0, postgresCpuBetween(pg0, await cpu.postgres())];
          const per = (ms: number) => (r.requests > 0 ? (ms * 1000) / r.requests : NaN);
          samples.push({
            target: c.name, stream: c.stream, round, rps: r.requests / r.seconds, errors: r.errors,
            p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99), ttfb50: percentile(r.ttfbs, 50),
            cpuUsPerReq: per(own), redisUsPerReq: per(redis), postgresUsPerReq: per(pg),
          });
          process.stdout.write(`round ${round} ${c.name}${c.stream ? ' stream' : ''}: ${(r.requests / r.seconds).toFixed(0)} req/s, p50 ${percentile(r.latencies, 50).toFixed(2)} ms, CPU µs/call ${per(own).toFixed(0)} (Redis ${per(redis).toFixed(0)}, Postgres ${per(pg).toFixed(0)}), errors ${r.errors}\n`);
        }
      }
      const throughputPssMb = pss.stop();
      const machine = await describeMachine(databaseUrl, redisUrl);
      const report = renderReport({
        samples, memory, throughputPssMb, machine, load: { start: startLoad, end: loadavg()[0] }, rounds, durationMs, concurrency, nodeOptions,
        date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      });
      process.stdout.write(`\n${report}\n`);
      if (args.includes('--write')) writePerformanceSection(ROOT, 'gateway', report);
    } finally {
      for (const c of children.reverse()) await c.stop();
      await cpu.close();
      await db?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (redisUrl) await dropRedisPrefix(redisUrl, prefix);
    }
  },
};
