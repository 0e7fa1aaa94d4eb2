/**
 * Gateway key limits benchmark (issue 4): the gateway with all four limits set on the key, through Redis, against
 * the same gateway with a key without limits (target: at least 70 % of its requests/s), and the Redis round trips
 * per request, counted command by command by a relay in front of Redis on a second gateway process (target: at
 * most two, one reserve and one settle). Needs REDIS_URL; Postgres from DATABASE_URL (a fresh database) or the
 * embedded one.
 *
 * Options: --rounds N (3), --seconds S per run (3), --concurrency C (50), --trips N calls counted (500), --write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import type { BenchSuite } from '../run.ts';
import { freshDatabase } from '../fresh-database.ts';
import { randomHex } from '../../core/ids.ts';
import { percentile, runLoad } from '../gateway/load.ts';
import { describeMachine } from '../gateway/machine.ts';
import { api, ROOT, startChild, type Child } from '../gateway/processes.ts';
import { cpuMs } from '../gateway/proc-stats.ts';
import { dropRedisPrefix } from '../gateway/redis-prefix.ts';
import { startCountingRelay } from '../limits/counting-relay.ts';
import { renderLimitsReport, writeLimitsSection, type LimitsSample, type RoundTrips } from '../limits/limits-report.ts';

const ADMIN = `bench-admin-${randomHex(8)}`;
const SECRET = `bench-secret-${randomHex(16)}`;
/** Every limit set, none reachable in a benchmark run. */
const ALL_LIMITS = { requests_per_minute: 1_000_000, requests_per_day: 1_000_000_000, tokens_per_month: 1_000_000_000_000, dollars_per_month: 10_000_000 };

function opt(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
}

/** n calls, `concurrency` at a time; returns how many answered 200. */
async function fire(origin: string, n: number, concurrency: number, headers: Record<string, string>, body: string): Promise<number> {
  const pool = new Pool(origin, { connections: concurrency });
  let next = 0;
  let ok = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) {
      next++;
      const res = await pool.request({ method: 'POST', path: '/v1/chat/completions', headers, body });
      await res.body.dump();
      if (res.statusCode === 200) ok++;
    }
  }));
  await pool.close();
  return ok;
}

export const suite: BenchSuite = {
  name: 'gateway-limits',
  description: 'the gateway with all four key limits through Redis vs no limits; Redis round trips per request',
  async run(args) {
    const redisUrl = process.env.REDIS_URL;
    if (!redisUrl) {
      process.stdout.write('skipped: set REDIS_URL (the limits are measured through Redis)\n');
      return;
    }
    const rounds = opt(args, 'rounds', 3);
    const durationMs = opt(args, 'seconds', 3) * 1000;
    const concurrency = opt(args, 'concurrency', 50);
    const tripCalls = opt(args, 'trips', 500);
    const databaseUrl = process.env.DATABASE_URL || undefined;
    const db = databaseUrl ? await freshDatabase(databaseUrl) : undefined;
    const dataDir = db ? undefined : mkdtempSync(join(tmpdir(), 'svc-bench-'));
    const prefix = `bench${randomHex(4)}:`;
    const env: Record<string, string> = {
      SVC_ADMIN_TOKEN: ADMIN, SVC_SECRET_KEY: SECRET, LOG_LEVEL: 'warn', NODE_ENV: 'production', REDIS_URL: redisUrl, SVC_REDIS_PREFIX: prefix,
      ...(db ? { DATABASE_URL: db.url } : { SVC_DATA_DIR: dataDir as string }),
    };
    const children: Child[] = [];
    const relay = await startCountingRelay(redisUrl);
    try {
      const upstream = await startChild(['bench/gateway/fast-upstream.ts', '0']);
      children.push(upstream);
      const setup = await startChild(['main.js', 'serve', '--role', 'all'], { ...env, PORT: '0' }, 120_000);
      let free: string;
      let limited: string;
      try {
        const base = `http://127.0.0.1:${setup.port}`;
        await api(base, ADMIN, 'POST', '/api/v1/teams', { name: 'bench' });
        await api(base, ADMIN, 'POST', '/api/v1/accounts', { name: 'openai', provider: 'openai', api_key: 'sk-bench-openai-0123456789', base_url: `http://127.0.0.1:${upstream.port}/v1`, models: ['gpt-4o-mini'] });
        free = (await api(base, ADMIN, 'POST', '/api/v1/keys', { name: 'free' }, { 'x-svc-team': 'bench' })).key as string;
        limited = (await api(base, ADMIN, 'POST', '/api/v1/keys', { name: 'limited', limits: ALL_LIMITS }, { 'x-svc-team': 'bench' })).key as string;
      } finally {
        await setup.stop();
      }
      const body = (stream: boolean) => JSON.stringify({ model: 'gpt-4o-mini', stream, max_tokens: 256, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me about foxes.' }] });
      const headers = (key: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${key}` });

      // Round trips: a second gateway whose Redis connection goes through the counting relay.
      const counted = await startChild(['main.js', 'serve', '--role', 'proxy'], { ...env, PORT: '0', REDIS_URL: relay.url }, 120_000);
      children.push(counted);
      const origin = `http://127.0.0.1:${counted.port}`;
      const trips = async (key: string): Promise<RoundTrips> => {
        await fire(origin, 5, 1, headers(key), body(false));
        await new Promise((r) => setTimeout(r, 200));
        relay.counter.reset();
        const ok = await fire(origin, tripCalls, 10, headers(key), body(false));
        await new Promise((r) => setTimeout(r, 500)); // settles are sent after the answer
        return { requests: ok, commands: Object.fromEntries(relay.counter.counts) };
      };
      const tripFree = await trips(free);
      const tripLimited = await trips(limited);
      await counted.stop();
      children.pop();
      process.stdout.write(`Redis commands for ${tripCalls} calls: no limits ${JSON.stringify(tripFree.commands)}, all four limits ${JSON.stringify(tripLimited.commands)}\n`);

      const gateway = await startChild(['main.js', 'serve', '--role', 'proxy'], { ...env, PORT: '0' }, 120_000);
      children.push(gateway);
      const configs = [false, true].flatMap((stream) => [
        { target: 'no limits' as const, key: free, stream },
        { target: 'all four limits' as const, key: limited, stream },
      ]);
      const load = (c: (typeof configs)[number], ms: number) => runLoad({
        origin: `http://127.0.0.1:${gateway.port}`, path: '/v1/chat/completions', body: body(c.stream), headers: headers(c.key), concurrency, durationMs: ms,
      });
      for (const c of configs) await load(c, 1000);
      // Redis's own CPU (server-wide: anything else using this Redis shows up too).
      const info = new Redis(redisUrl);
      const redisPid = Number(/process_id:(\d+)/.exec(await info.info('server'))?.[1] ?? 0);
      info.disconnect();
      const redisCpu = () => { try { return redisPid ? cpuMs(redisPid) : NaN; } catch { return NaN; } };
      const samples: LimitsSample[] = [];
      for (let round = 1; round <= rounds; round++) {
        for (const c of configs) {
          const [cpu0, redis0] = [cpuMs(gateway.pid), redisCpu()];
          const r = await load(c, durationMs);
          const [cpu, redis] = [cpuMs(gateway.pid) - cpu0, redisCpu() - redis0];
          const per = (ms: number) => (r.requests ? (ms * 1000) / r.requests : NaN);
          samples.push({ target: c.target, stream: c.stream, round, rps: r.requests / r.seconds, p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99), cpuUsPerReq: per(cpu), redisCpuUsPerReq: per(redis), errors: r.errors });
          process.stdout.write(`round ${round} ${c.target}${c.stream ? ' stream' : ''}: ${(r.requests / r.seconds).toFixed(0)} req/s, p50 ${percentile(r.latencies, 50).toFixed(2)} ms, gateway CPU ${per(cpu).toFixed(0)} µs/req, Redis CPU ${per(redis).toFixed(0)} µs/req, errors ${r.errors}\n`);
        }
      }
      const machine = await describeMachine(databaseUrl, redisUrl);
      const report = renderLimitsReport({ samples, trips: { free: tripFree, limited: tripLimited }, machine, rounds, durationMs, concurrency, date: new Date().toISOString().slice(0, 10) });
      process.stdout.write(`\n${report}\n`);
      if (args.includes('--write')) writeLimitsSection(ROOT, report);
    } finally {
      for (const c of children.reverse()) await c.stop();
      await relay.close();
      await db?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      await dropRedisPrefix(redisUrl, prefix);
    }
  },
};
