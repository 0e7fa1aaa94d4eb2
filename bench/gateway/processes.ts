/** Child processes of the gateway benchmark: each prints "listening <port>" (or svc's start line) when ready. */
import { spawn, type ChildProcess } from 'node:child_process';
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

export function startChild(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Child> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in time:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = READY.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.stdout?.off('data', onData);
        proc.stdout?.resume();
        resolve({
          proc, pid: proc.pid ?? 0, port: Number(m[1]),
          stop: () => new Promise<void>((res) => {
            if (proc.exitCode !== null) return res();
            proc.once('exit', () => res());
            proc.kill('SIGTERM');
            setTimeout(() => proc.kill('SIGKILL'), 15_000).unref();
          }),
        });
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

/** A JSON call to the control plane with the admin token. */
export async function api(base: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}
