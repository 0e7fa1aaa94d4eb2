/**
 * svc split by role as docs/deployment.md describes it, on one machine: `n` `--role proxy` nodes and one
 * `--role control-plane` node (real processes, each on a fixed free port and its own data directory) behind HAProxy
 * running deploy/haproxy.cfg, with SVC_PUBLIC_URL naming the balancer. A proxy node can be killed and started
 * again on the same port and data directory (the balancer's configuration names fixed addresses).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../../support/free-port.ts';
import { spawnNode, type NodeProcess } from '../../support/spawn-node.ts';
import { startHaproxy, type Haproxy } from './start-haproxy.ts';

export interface SplitCluster {
  /** The balancer's address: what clients, DSNs and SVC_PUBLIC_URL use. */
  url: string;
  lb: Haproxy;
  controlPlane: NodeProcess;
  /** The proxy nodes' current processes (replaced by restartProxy). */
  proxies: NodeProcess[];
  /** Exits the test did not cause (a node exiting by itself; the test's own SIGKILLs and stops do not count). */
  unexpectedExits: string[];
  /**
   * Stops proxy node i (SIGKILL unless told; nothing to do when it is already gone) and starts it again on its port
   * and data directory, running `main` (another version's main.js) when given.
   */
  restartProxy(i: number, opts?: { signal?: NodeJS.Signals; main?: string }): Promise<NodeProcess>;
  stop(): Promise<void>;
}

/** `env`: DATABASE_URL, REDIS_URL, SVC_REDIS_PREFIX, SVC_SECRET_KEY, SVC_ADMIN_TOKEN shared by every node. */
export async function startSplitCluster(opts: { proxies: number; env: Record<string, string> }): Promise<SplitCluster> {
  // Every port of the cluster at once, so that none repeats (the balancer's two, the control plane's, the proxies').
  const [lbPort, statsPort, ...nodePorts] = await freePorts(3 + opts.proxies);
  const url = `http://127.0.0.1:${lbPort}`;
  const unexpectedExits: string[] = [];
  /** Nodes this helper was asked to stop (a graceful stop exits 0 after its drain). */
  const stopped = new Set<NodeProcess>();
  const dirs: string[] = [];
  const start = async (role: 'proxy' | 'control-plane', port: number, dataDir: string, main?: string) => {
    const how = main ? { command: process.execPath, args: [main, 'serve', '--role', role] } : undefined;
    const n = await spawnNode(role, { ...opts.env, SVC_PUBLIC_URL: url, PORT: String(port), SVC_DATA_DIR: dataDir }, how);
    n.proc.on('exit', (code, signal) => {
      if (!stopped.has(n) && signal !== 'SIGKILL') unexpectedExits.push(`${role} on ${port}: exit ${code} ${signal}:\n${n.output().slice(-4000)}`);
    });
    return n;
  };
  const slot = (port: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-lb-node-'));
    dirs.push(dir);
    return { port, dir };
  };

  // The control plane first: it applies the migrations and bootstraps; the proxies then start on a ready schema.
  const cp = slot(nodePorts[0]);
  const slots = nodePorts.slice(1).map(slot);
  const started: NodeProcess[] = [];
  let controlPlane: NodeProcess, proxies: NodeProcess[], lb: Haproxy;
  try {
    controlPlane = await start('control-plane', cp.port, cp.dir);
    started.push(controlPlane);
    const settled = await Promise.allSettled(slots.map((s) => start('proxy', s.port, s.dir)));
    for (const r of settled) if (r.status === 'fulfilled') started.push(r.value);
    proxies = settled.map((r) => {
      if (r.status === 'rejected') throw r.reason;
      return r.value;
    });
    lb = await startHaproxy({ proxies: slots.map((s) => `127.0.0.1:${s.port}`), controlPlane: `127.0.0.1:${cp.port}`, port: lbPort, statsPort });
  } catch (err) {
    // Nothing left running when the cluster could not be built.
    await Promise.all(started.map((n) => n.stop('SIGKILL')));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    throw err;
  }

  const cluster: SplitCluster = {
    url,
    lb,
    controlPlane,
    proxies,
    unexpectedExits,
    async restartProxy(i, { signal = 'SIGKILL', main } = {}) {
      stopped.add(cluster.proxies[i]);
      await cluster.proxies[i].stop(signal);
      cluster.proxies[i] = await start('proxy', slots[i].port, slots[i].dir, main);
      return cluster.proxies[i];
    },
    async stop() {
      await lb.stop();
      await Promise.all([...cluster.proxies, controlPlane].map((n) => (stopped.add(n), n.stop())));
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
  return cluster;
}
