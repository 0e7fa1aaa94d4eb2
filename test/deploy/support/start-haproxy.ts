/**
 * Runs HAProxy in the foreground with the repository's deploy/haproxy.cfg, its addresses given as environment
 * variables (the file reads them), and reads its stats CSV: which servers are UP or DOWN and how many sessions each
 * has served. `haproxy` must be on PATH (Debian's package; .ci/run installs it).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../../support/free-port.ts';

export const HAPROXY_CFG = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'deploy', 'haproxy.cfg');

export function haproxyAvailable(): boolean {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface ServerStats {
  backend: string;
  server: string;
  /** UP, DOWN, "UP 1/2" (going down), "DOWN 1/2" (coming back), MAINT, … */
  status: string;
  /** Sessions this server has served since HAProxy started. */
  sessions: number;
  /** The last health check: its status, HTTP code and HAProxy's note, e.g. "L7OK 200 OK". */
  lastCheck: string;
}

export interface Haproxy {
  url: string;
  /** The proxy nodes' and the control plane's rows of the stats page. */
  servers(): Promise<ServerStats[]>;
  output(): string;
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.on('connect', () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });
}

/** `proxies` and `controlPlane` are host:port; at most four proxies (the configuration's server lines). */
export async function startHaproxy(opts: { proxies: string[]; controlPlane: string; port?: number; statsPort?: number }): Promise<Haproxy> {
  const { proxies, controlPlane } = opts;
  if (proxies.length < 1 || proxies.length > 4) throw new Error('deploy/haproxy.cfg has server lines for 1 to 4 proxy nodes');
  const [port, statsPort] = opts.port !== undefined && opts.statsPort !== undefined ? [opts.port, opts.statsPort] : await freePorts(2);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    SVC_LB_BIND: `127.0.0.1:${port}`,
    SVC_LB_STATS_BIND: `127.0.0.1:${statsPort}`,
    SVC_CONTROL_PLANE: controlPlane,
  };
  proxies.forEach((p, i) => (env[`SVC_PROXY_${i + 1}`] = p));
  const proc: ChildProcess = spawn('haproxy', ['-db', '-f', HAPROXY_CFG], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (!(await accepts(port)) || !(await accepts(statsPort))) {
    if (proc.exitCode !== null) throw new Error(`haproxy exited with ${proc.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`haproxy did not listen in time:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    async servers() {
      const csv = await (await fetch(`http://127.0.0.1:${statsPort}/;csv`, { signal: AbortSignal.timeout(5000) })).text();
      const [head, ...rows] = csv.trim().split('\n');
      const cols = head.replace(/^# /, '').split(',');
      const at = (name: string) => cols.indexOf(name);
      return rows
        .map((r) => r.split(','))
        .filter((c) => c[at('svname')] !== 'FRONTEND' && c[at('svname')] !== 'BACKEND' && c[at('pxname')] !== 'stats')
        .map((c) => ({ backend: c[at('pxname')], server: c[at('svname')], status: c[at('status')], sessions: Number(c[at('stot')]), lastCheck: [c[at('check_status')], c[at('check_code')], c[at('last_chk')]].join(' ') }));
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
