/**
 * A private Redis Cluster for tests: three masters (`redis-server --cluster-enabled yes` on free ports of 127.0.0.1,
 * each in a directory of its own under one temporary directory), joined by `redis-cli --cluster create` with no
 * replicas. Persistence as a production cluster would have it: AOF with `appendfsync everysec`. The other masters
 * keep serving their slots while one is down (`cluster-require-full-coverage no`, docs/deployment.md). The shared
 * Redis is never touched.
 *
 * `stop(i)` kills master i (SIGKILL: a crash), `start(i)` starts it again on the same port, directory and node id
 * (its nodes.conf), and waits until every master reports the cluster ok. `snapshot(i)` / `restore(i)` copy master
 * i's AOF directory aside and back: a restart after restore(i) starts from the snapshot, as a master whose host
 * crashed would start from what its disk had synced (the last second of writes lost).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

const run = promisify(execFile);
const bytesIn = (dir: string) => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);

export interface ThrowawayRedisCluster {
  /** `redis-cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,127.0.0.1:<p3>` */
  url: string;
  ports: number[];
  /** The master (index into ports) that serves a key's slot. */
  masterOf(key: string): Promise<number>;
  stop(i: number): Promise<void>;
  start(i: number): Promise<void>;
  snapshot(i: number): void;
  /** Puts master i's AOF back as snapshot(i) took it (the master stopped); returns the bytes of AOF it dropped. */
  restore(i: number): number;
  /** Runs redis-cli against master i and returns its output. */
  cli(i: number, ...args: string[]): Promise<string>;
  /**
   * Moves a key's slot to master `to` while clients use it, the way `redis-cli --cluster reshard` does: the slot
   * is marked importing and migrating, its keys are moved one at a time (`pauseMs` apart), then every
   * master is told its new owner. Resolves with the number of keys moved.
   */
  migrateSlotOf(key: string, to: number, pauseMs?: number): Promise<number>;
  cleanup(): Promise<void>;
}

const MASTERS = 3;

export async function startThrowawayRedisCluster(): Promise<ThrowawayRedisCluster> {
  const root = mkdtempSync(join(tmpdir(), 'svc-redis-cluster-'));
  const ports: number[] = [];
  while (ports.length < MASTERS) {
    const p = await freePort();
    // A cluster node also listens on port + 10000 (the cluster bus).
    if (!ports.includes(p) && p + 10000 <= 65535) ports.push(p);
  }
  const procs: (ChildProcess | undefined)[] = new Array(MASTERS).fill(undefined);
  const exits: Promise<void>[] = new Array(MASTERS).fill(Promise.resolve());
  const dir = (i: number) => join(root, String(ports[i]));
  const cli = async (i: number, ...args: string[]) => (await run('redis-cli', ['-p', String(ports[i]), ...args])).stdout;

  const launch = async (i: number) => {
    mkdirSync(dir(i), { recursive: true });
    const p = spawn('redis-server', [
      '--port', String(ports[i]), '--bind', '127.0.0.1', '--dir', dir(i), '--save', '',
      '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '1000',
      '--cluster-require-full-coverage', 'no',
      // No rewrite while a test copies the directory: the AOF only grows.
      '--appendonly', 'yes', '--appendfsync', 'everysec', '--auto-aof-rewrite-percentage', '0',
    ], { stdio: 'ignore' });
    procs[i] = p;
    exits[i] = new Promise((resolve) => p.on('exit', () => resolve()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (p.exitCode !== null) throw new Error(`redis-server on ${ports[i]} exited with ${p.exitCode}`);
      if ((await cli(i, 'ping').catch(() => '')).trim() === 'PONG') return;
      if (Date.now() > deadline) throw new Error(`redis-server on ${ports[i]} did not start in time`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  /** Until every running master says cluster_state:ok and serves all 16384 slots. */
  const settled = async () => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const infos = await Promise.all(ports.map((_, i) => (procs[i] ? cli(i, 'cluster', 'info').catch(() => '') : Promise.resolve('down'))));
      if (infos.every((s) => s === 'down' || (s.includes('cluster_state:ok') && s.includes('cluster_slots_ok:16384')))) return;
      if (Date.now() > deadline) throw new Error(`the Redis Cluster did not settle:\n${infos.join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const stop = async (i: number) => {
    const p = procs[i];
    if (!p) return;
    p.kill('SIGKILL');
    await exits[i];
    procs[i] = undefined;
  };

  try {
    await Promise.all(ports.map((_, i) => launch(i)));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
    await settled();
  } catch (err) {
    await Promise.all(ports.map((_, i) => stop(i)));
    rmSync(root, { recursive: true, force: true });
    throw err;
  }

  // Slot ranges per master, as CLUSTER SLOTS reports them (migrateSlotOf() moves single slots).
  const moved = new Map<number, number>();
  const ranges: { from: number; to: number; port: number }[] = [];
  const slots = (await cli(0, '--no-raw', 'cluster', 'slots')).split('\n');
  for (let l = 0; l < slots.length; l++) {
    const from = /^\s*\d+\) 1\) \(integer\) (\d+)/.exec(slots[l]);
    if (!from) continue;
    const to = /\(integer\) (\d+)/.exec(slots[l + 1] ?? '');
    const port = /\(integer\) (\d+)/.exec(slots[l + 3] ?? '');
    if (to && port) ranges.push({ from: Number(from[1]), to: Number(to[1]), port: Number(port[1]) });
  }

  return {
    url: `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    cli,
    masterOf: async (key) => {
      const slot = Number((await cli(ports.findIndex((_, i) => procs[i]), 'cluster', 'keyslot', key)).trim());
      const owner = moved.get(slot);
      if (owner !== undefined) return owner;
      const r = ranges.find((x) => slot >= x.from && slot <= x.to);
      if (!r) throw new Error(`no master serves slot ${slot}`);
      return ports.indexOf(r.port);
    },
    migrateSlotOf: async (key, to, pauseMs = 20) => {
      const slot = (await cli(to, 'cluster', 'keyslot', key)).trim();
      const owner = moved.get(Number(slot)) ?? ports.indexOf(ranges.find((x) => Number(slot) >= x.from && Number(slot) <= x.to)?.port ?? -1);
      if (owner === to) return 0;
      const id = async (i: number) => (await cli(i, 'cluster', 'myid')).trim();
      const [fromId, toId] = await Promise.all([id(owner), id(to)]);
      await cli(to, 'cluster', 'setslot', slot, 'importing', fromId);
      await cli(owner, 'cluster', 'setslot', slot, 'migrating', toId);
      let count = 0;
      for (;;) {
        const keys = (await cli(owner, 'cluster', 'getkeysinslot', slot, '1')).split('\n').filter(Boolean);
        if (keys.length === 0) break;
        await cli(owner, 'migrate', '127.0.0.1', String(ports[to]), '', '0', '5000', 'keys', ...keys);
        count += keys.length;
        await new Promise((r) => setTimeout(r, pauseMs));
      }
      await cli(to, 'cluster', 'setslot', slot, 'node', toId);
      await cli(owner, 'cluster', 'setslot', slot, 'node', toId);
      await Promise.all(ports.map((_, i) => (i === to || i === owner || !procs[i] ? undefined : cli(i, 'cluster', 'setslot', slot, 'node', toId))));
      moved.set(Number(slot), to);
      return count;
    },
    stop,
    start: async (i) => {
      if (!procs[i]) await launch(i);
      await settled();
    },
    snapshot: (i) => cpSync(join(dir(i), 'appendonlydir'), join(root, `snapshot-${i}`), { recursive: true }),
    restore: (i) => {
      if (procs[i]) throw new Error('restore needs the master stopped');
      const dropped = bytesIn(join(dir(i), 'appendonlydir')) - bytesIn(join(root, `snapshot-${i}`));
      rmSync(join(dir(i), 'appendonlydir'), { recursive: true, force: true });
      cpSync(join(root, `snapshot-${i}`), join(dir(i), 'appendonlydir'), { recursive: true });
      return dropped;
    },
    cleanup: async () => {
      await Promise.all(ports.map((_, i) => stop(i)));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
