/** Child processes of the ingest benchmark (svc itself and the null endpoint), with their CPU time and peak RSS. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Child {
  proc: ChildProcess;
  pid: number;
  port: number;
  stop(): Promise<void>;
}

const READY = /listening (?:on http:\/\/[\d.]+:)?(\d+)/;

export function startChild(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<Child> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in time:\n${out}`)), timeoutMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`));
    };
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = READY.exec(out);
      if (!m) return;
      clearTimeout(timer);
      proc.stdout?.off('data', onData);
      proc.off('exit', onExit);
      proc.stdout?.resume();
      resolve({
        proc, pid: proc.pid ?? 0, port: Number(m[1]),
        stop: () => new Promise<void>((res) => {
          if (proc.exitCode !== null) return res();
          proc.once('exit', () => res());
          proc.kill('SIGTERM');
          setTimeout(() => proc.kill('SIGKILL'), 30_000).unref();
        }),
      });
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.length > 100_000) out = out.slice(-50_000);
    });
    proc.once('exit', onExit);
  });
}

/** CPU time (user + system) of a process in ms, from /proc (Linux); NaN elsewhere. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** Peak resident memory of a process in MB (VmHWM), from /proc (Linux); NaN elsewhere. */
export function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU time in ms of every process whose command line matches (Linux; machine-wide, whoever started them). */
export function matchingCpuMs(pattern: RegExp): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (pattern.test(cmd)) total += cpuMs(Number(pid));
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}
