/**
 * A private Redis for tests that restart it: `redis-server` on a free port of 127.0.0.1, no persistence (a restart
 * starts empty, as a failover to a cold replica would). The shared server is never touched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './free-port.ts';

export interface ThrowawayRedis {
  /** redis://127.0.0.1:<port> */
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  cleanup(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.setTimeout(1000);
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.on('error', () => resolve(false));
    s.on('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = async () => {
    if (proc) return;
    const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    proc = p;
    exited = new Promise((resolve) => p.on('exit', () => resolve()));
    const deadline = Date.now() + 30_000;
    while (!(await ping(port))) {
      if (p.exitCode !== null) throw new Error(`redis-server exited with ${p.exitCode}`);
      if (Date.now() > deadline) throw new Error('redis-server did not start in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    if (!proc) return;
    proc.kill('SIGKILL');
    await exited;
    proc = undefined;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, restart: async () => (await stop(), await start()), cleanup: stop };
}
