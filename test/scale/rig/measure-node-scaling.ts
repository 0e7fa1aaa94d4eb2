/**
 * CPU per gateway call and per error event at a fixed total load, with one, two and three `--role proxy` nodes
 * behind HAProxy (deploy/haproxy.cfg) on a throwaway Postgres and Redis: adding nodes must not add work per request
 * (the figures should stay within about ±10 % of each other). A measurement, not a test (no figure is asserted):
 *
 *   node test/scale/rig/measure-node-scaling.ts [--seconds 15] [--rounds 2] [--calls-per-s 150] [--events-per-s 250]
 *     [--nodes 1,2,3] [--warm-per-node 1500] [--node-options '<NODE_OPTIONS for the svc nodes>']
 *
 * Each round starts a fresh set of nodes per node count (order alternating between rounds) on the same database,
 * warms it up with the same number of calls and of events per node whatever their count (`--warm-per-node`; at a
 * fixed total rate that takes longer with more nodes; until V8 has compiled the hot paths a call costs more, so an
 * equal warm-up per node keeps that start-up cost out of the comparison), then sends gateway calls alone and events
 * alone at the fixed rate (open loop), and reads the CPU time (user + system, all threads) of the proxy processes,
 * Postgres (every process of the throwaway cluster) and Redis from /proc before and after; events count until the
 * inbox is empty again, so their processing is included. Prints a Markdown table; docs/deployment.md keeps the figures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startSplitCluster, type SplitCluster } from '../../deploy/support/start-split-cluster.ts';
import { startFake } from '../../fakes/start-fake.ts';
import { eventEnvelope, randomEventId, sentryAuth } from '../../ingest/support/ingest-helpers.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../../support/test-server.ts';
import { startThrowawayPostgres } from '../../support/throwaway-postgres.ts';
import { startThrowawayRedis } from '../../support/throwaway-redis.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '15' }, rounds: { type: 'string', default: '2' }, 'calls-per-s': { type: 'string', default: '150' }, 'events-per-s': { type: 'string', default: '250' }, nodes: { type: 'string', default: '1,2,3' }, 'node-options': { type: 'string', default: '' }, 'warm-per-node': { type: 'string', default: '1500' } } });
const NODES = values.nodes.split(',').map(Number);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const RATE = { gateway: Number(values['calls-per-s']), ingest: Number(values['events-per-s']) };
const WARM_PER_NODE = Number(values['warm-per-node']);
/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICK = 100;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * CPU seconds (user + system, all threads) of a process, 0 once it is gone; with `reaped`, also that of its children
 * that exited (Postgres backends come and go; the postmaster reaps them, and their time then counts there).
 */
function cpuOf(pid: number, reaped = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0)) / TICK;
  } catch {
    return 0;
  }
}

/** Processes whose command line matches, and (for Postgres) their children. */
function pidsOf(match: (cmd: string) => boolean, withChildren: boolean): number[] {
  const all = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  const cmd = (p: number) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      return '';
    }
  };
  const ppid = (p: number) => {
    try {
      const s = readFileSync(`/proc/${p}/stat`, 'utf8');
      return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return -1;
    }
  };
  const roots = all.filter((p) => match(cmd(p)));
  return withChildren ? [...roots, ...all.filter((p) => roots.includes(ppid(p)))] : roots;
}

async function api(url: string, method: string, path: string, body?: unknown, team?: string): Promise<Record<string, unknown>> {
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...(team ? { 'x-svc-team': team } : {}) }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Sends `rate` requests per second for `seconds` (open loop, at most 500 in flight); returns how many got 200. */
async function openLoop(rate: number, seconds: number, send: () => Promise<number>): Promise<{ ok: number; other: number }> {
  let [ok, other, inFlight] = [0, 0, 0];
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  for (let sent = 0; sent < rate * seconds; ) {
    const due = Math.floor(((performance.now() - t0) / 1000) * rate);
    for (; sent < Math.min(due, rate * seconds) && inFlight < 500; sent++) {
      inFlight++;
      pending.push(
        send().then(
          (s) => void (s === 200 ? ok++ : other++),
          () => void other++,
        ).finally(() => inFlight--),
      );
    }
    await pause(5);
  }
  await Promise.all(pending);
  return { ok, other };
}

const [pgs, redis, chat] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis(), startFake('chat', ['gpt-4o-mini'])]);
const env: Record<string, string> = { DATABASE_URL: pgs.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: 'scale:', SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY };
if (values['node-options']) env.NODE_OPTIONS = values['node-options'];
const db = new pg.Client({ connectionString: pgs.url });
let setup: { projectId: number; dsnKey: string; gatewayKey: string } | undefined;
const rows: string[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const n of round % 2 ? [...NODES].reverse() : NODES) {
      const cluster: SplitCluster = await startSplitCluster({ proxies: n, env });
      try {
        if (!setup) {
          await db.connect();
          await api(cluster.url, 'POST', '/api/v1/teams', { name: 'scale' });
          const p = await api(cluster.url, 'POST', '/api/v1/projects', { name: 'scale', events_per_minute: 10_000_000 }, 'scale');
          const k = await api(cluster.url, 'POST', '/api/v1/keys', { name: 'scale' }, 'scale');
          await api(cluster.url, 'POST', '/api/v1/accounts', { name: 'chat-fake', provider: 'openai', api_key: 'sk-fake-scale-0123456789abcdef', base_url: `${chat.url}/v1`, models: ['gpt-4o-mini'] });
          setup = { projectId: p.id as number, dsnKey: p.public_key as string, gatewayKey: k.key as string };
        }
        const s = setup;
        const call = () =>
          fetch(`${cluster.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${s.gatewayKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'scale' }] }),
          }).then(async (r) => (await r.arrayBuffer(), r.status));
        const event = () => {
          const id = randomEventId();
          return fetch(`${cluster.url}/api/${s.projectId}/envelope/`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-sentry-envelope', ...sentryAuth(s.dsnKey) },
            body: new Uint8Array(eventEnvelope({ event_id: id, message: `scale ${id.slice(0, 6)}`, level: 'error' }, { event_id: id })),
          }).then(async (r) => (await r.arrayBuffer(), r.status));
        };
        // Warm-up: caches, connections, JIT, on every node (the same number of requests per node; at least 3 s).
        await openLoop(RATE.gateway, Math.max(3, Math.ceil((WARM_PER_NODE * n) / RATE.gateway)), call);
        await openLoop(RATE.ingest, Math.max(3, Math.ceil((WARM_PER_NODE * n) / RATE.ingest)), event);
        await pause(1000);
        const groups = {
          proxies: () => cluster.proxies.map((p) => p.proc.pid as number),
          postgres: () => pidsOf((c) => c.includes(`-p ${pgs.port} `), true),
          // redis-server renames itself to `redis-server 127.0.0.1:<port>`.
          redis: () => pidsOf((c) => c.startsWith('redis-server') && c.includes(`:${redis.port}`), false),
        };
        const postmaster = pidsOf((c) => c.includes(`-p ${pgs.port} `), false)[0];
        const cpu = () => Object.fromEntries(Object.entries(groups).map(([g, pids]) => [g, pids().reduce((a, p) => a + cpuOf(p, p === postmaster), 0)]));
        // What a node costs doing nothing (timers, health probes, cache refreshes, inbox claims), per node.
        const idle0 = cpu();
        await pause(SECONDS * 1000);
        const idle = Math.round(((cpu().proxies - idle0.proxies) * 1000) / SECONDS / n);
        rows.push(`| ${round + 1} | ${n} | none (idle) | – | – | ${idle} ms per node per second | | | |`);
        process.stderr.write(`${rows.at(-1)}\n`);
        // Postgres commits per request show how well each node's writes are grouped (statistics lag up to 0.5 s).
        const commits = async () => {
          await pause(600);
          return (await db.query<{ n: string }>("SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = 'svc'")).rows[0].n;
        };
        for (const kind of ['gateway', 'ingest'] as const) {
          const commits0 = Number(await commits());
          const before = cpu();
          const r = await openLoop(RATE[kind], SECONDS, kind === 'gateway' ? call : event);
          if (kind === 'ingest') {
            while ((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM ingest_inbox')).rows[0].n > 0) await pause(200);
          }
          await pause(500);
          const after = cpu();
          const perCommit = ((Number(await commits()) - commits0) / Math.max(1, r.ok)).toFixed(2);
          const per = (g: string) => Math.round(((after[g] - before[g]) * 1e6) / Math.max(1, r.ok));
          rows.push(`| ${round + 1} | ${n} | ${kind === 'gateway' ? 'gateway calls' : 'error events'} | ${RATE[kind]}/s × ${SECONDS} s | ${r.ok} (${r.other} other) | ${per('proxies')} | ${per('postgres')} | ${per('redis')} | ${perCommit} |`);
          process.stderr.write(`${rows.at(-1)}\n`);
        }
      } finally {
        await cluster.stop();
      }
    }
  }
} finally {
  await db.end().catch(() => {});
  await Promise.all([pgs.cleanup(), redis.cleanup(), chat.close()]);
}
process.stdout.write(['| round | proxy nodes | load | rate | answered 200 | proxy nodes µs CPU each | Postgres µs each | Redis µs each | Postgres commits each |', '|---|---|---|---|---|---|---|---|---|', ...rows].join('\n') + '\n');
