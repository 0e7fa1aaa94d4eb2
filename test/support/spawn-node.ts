/**
 * Starts a real `node main.js serve` process for tests of several nodes on one Postgres and one Redis.
 * Resolves once it listens; `stop()` sends SIGTERM and waits for the exit code. Each node gets a data directory of
 * its own (its write journals) unless env names one (SVC_DATA_DIR: e.g. to restart a node on the same directory).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface NodeProcess {
  proc: ChildProcess;
  url: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** How a node is started: by default this test runner's node running main.js with the role. */
export interface NodeCommand {
  command: string;
  args: string[];
}

export function spawnNode(role: 'all' | 'proxy' | 'control-plane', env: Record<string, string>, how?: NodeCommand): Promise<NodeProcess> {
  // A data directory of its own, removed when the process exits (one named in env is the caller's to keep).
  const ownDir = env.SVC_DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'svc-node-')) : undefined;
  const { command, args } = how ?? { command: process.execPath, args: [join(ROOT, 'main.js'), 'serve', '--role', role] };
  const proc = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', LOG_LEVEL: 'warn', ...(ownDir ? { SVC_DATA_DIR: ownDir } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (out += d));
  let exited: Promise<number | null> = new Promise((resolve) =>
    proc.on('exit', (code) => {
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start in time:\n${out}`)), 60_000);
    void exited.then((code) => reject(new Error(`node exited with ${code}:\n${out}`)));
    const poll = setInterval(() => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (!m) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve({
        proc,
        url: m[1],
        output: () => out,
        stop: (signal: NodeJS.Signals = 'SIGTERM') => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
          return exited;
        },
      });
    }, 25);
  }).finally(() => {
    exited = exited.catch(() => null);
  }) as Promise<NodeProcess>;
}
