/**
 * svc as a child process (`node main.js serve --role all`) on a fresh database of DATABASE_URL, for tests that
 * measure the server's own memory. Needs DATABASE_URL (the embedded database would live in the process).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomHex } from '../../../core/ids.ts';
import { createTestDatabase } from '../../support/test-db.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../../support/test-server.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface SpawnedServer {
  url: string;
  pid: number;
  /** Peak resident memory so far, MB (Linux). */
  peakRssMb(): number;
  close(): Promise<void>;
}

export async function spawnServer(env: Record<string, string> = {}): Promise<SpawnedServer> {
  const tdb = await createTestDatabase();
  if (!tdb.url) throw new Error('spawnServer needs DATABASE_URL');
  await tdb.db.close();
  const proc = spawn(process.execPath, ['main.js', 'serve', '--role', 'all'], {
    cwd: ROOT,
    env: {
      ...process.env, PORT: '0', LOG_LEVEL: 'warn', SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY, DATABASE_URL: tdb.url,
      ...(process.env.REDIS_URL ? { SVC_REDIS_PREFIX: `t${randomHex(4)}:` } : {}), ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc did not start:\n${out}`)), 60_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/[\d.]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => reject(new Error(`svc exited with ${code}:\n${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: proc.pid ?? 0,
    peakRssMb: () => {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : NaN;
    },
    close: async () => {
      if (proc.exitCode === null) {
        await new Promise<void>((res) => {
          proc.once('exit', () => res());
          proc.kill('SIGTERM');
        });
      }
      await tdb.drop();
    },
  };
}
