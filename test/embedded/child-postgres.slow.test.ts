/**
 * The embedded default's life cycle on the child Postgres, with the real server process as `npm start` runs it:
 * SIGTERM and a terminal's Ctrl-C stop svc and its database (no postgres left); a SIGKILL of svc stops the database
 * too (its guard sees svc gone) and the next start goes on with the same data; a postmaster that did outlive svc is
 * stopped by the next start, one that another running svc holds is not (refused); a stale postmaster.pid whose pid
 * belongs to another process is cleared; a database that dies under a running node is reported.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildPostgres } from '../../core/db/child-postgres.ts';
import { createEmbeddedDb, postgresDir } from '../../core/db/embedded-db.ts';
import { createLogger } from '../../core/logger.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';

const dirs: string[] = [];
const procs: ChildProcess[] = [];
afterAll(() => {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-child-pg-'));
  dirs.push(d);
  return d;
}

interface Started { proc: ChildProcess; url: string; output: () => string }

function start(dir: string, ownGroup = false, asUser?: string): Promise<Started> {
  const env = { PATH: process.env.PATH ?? '', HOME: asUser ? tmpdir() : process.env.HOME ?? '', SVC_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info' };
  const [cmd, args] = asUser
    ? ['runuser', ['-u', asUser, '--', 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, 'main.js', 'serve']]
    : [process.execPath, ['main.js', 'serve']];
  const proc = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: ownGroup });
  procs.push(proc);
  let out = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${out}`)), 60_000);
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
    const poll = setInterval(() => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (!m) return;
      clearInterval(poll);
      clearTimeout(timer);
      proc.removeAllListeners('exit');
      resolve({ proc, url: m[1], output: () => out });
    }, 50);
  });
}

const exited = (p: ChildProcess) => new Promise<number | null>((resolve) => (p.exitCode !== null ? resolve(p.exitCode) : p.once('exit', (code) => resolve(code))));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const postmasterPid = (dir: string) => Number(readFileSync(join(postgresDir(dir), 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);

/** Processes whose command line names this data dir (the postmaster and its backends). */
function postgresOn(dir: string): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(join(postgresDir(dir), 'data'));
    } catch {
      return false;
    }
  }).map(Number);
}

async function waitUntil(fn: () => boolean, ms = 15_000): Promise<void> {
  for (const t0 = Date.now(); !fn(); await new Promise((r) => setTimeout(r, 100))) if (Date.now() - t0 > ms) throw new Error('timed out');
}

describe.skipIf(process.platform !== 'linux')('the child Postgres under a real server process', () => {
  it('SIGTERM stops svc and its database; a SIGKILL of svc stops the database too, and the next start keeps the data', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const token = /token:\s+(tk_\S+)/.exec(first.output())?.[1];
    expect(token, first.output()).toBeDefined();
    const health = await (await fetch(`${first.url}/healthz`)).json();
    expect(health.checks.database).toMatchObject({ ok: true, kind: 'embedded' });
    const created = await fetch(`${first.url}/api/v1/teams`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'kept-team' }) });
    expect(created.status).toBe(201);

    // SIGKILL: svc cannot stop its child; the guard's pipe closes and it stops the postmaster.
    const orphan = postmasterPid(dir);
    first.proc.kill('SIGKILL');
    await exited(first.proc);
    await waitUntil(() => !alive(orphan));
    expect(postgresOn(dir)).toEqual([]);

    const second = await start(dir);
    const teams = await (await fetch(`${second.url}/api/v1/teams`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(teams.items.map((t: { name: string }) => t.name)).toContain('kept-team');

    const pid = postmasterPid(dir);
    second.proc.kill('SIGTERM');
    expect(await exited(second.proc)).toBe(0);
    await waitUntil(() => !alive(pid));
    expect(postgresOn(dir)).toEqual([]);
    // A clean shutdown of the cluster removes its lock file.
    expect(existsSync(join(postgresDir(dir), 'data', 'postmaster.pid'))).toBe(false);
  });

  it('Ctrl-C (SIGINT to the whole process group of a terminal) drains svc first, then stops the database', async () => {
    const dir = dataDir();
    const s = await start(dir, true);
    const pid = postmasterPid(dir);
    process.kill(-s.proc.pid!, 'SIGINT');
    expect(await exited(s.proc)).toBe(0);
    await waitUntil(() => !alive(pid));
    expect(postgresOn(dir)).toEqual([]);
  });
});

/** Started as root, the tests above ran the database as the postgres user; this runs all of svc as a normal user. */
const asNormalUser = process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('runuser', ['-u', 'nobody', '--', 'test', '-r', 'main.js']).status === 0;

describe.skipIf(!asNormalUser)('the embedded default started by a normal user', () => {
  it('runs the database as that user, serves, and leaves nothing behind on SIGTERM', async () => {
    const dir = dataDir();
    const nobody = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
    chownSync(dir, nobody, Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim()));
    const s = await start(dir, false, 'nobody');
    const health = await (await fetch(`${s.url}/healthz`)).json();
    expect(health.checks.database).toMatchObject({ ok: true, kind: 'embedded' });
    const pid = postmasterPid(dir);
    expect(statSync(`/proc/${pid}`).uid).toBe(nobody);
    // The signal goes to svc itself, runuser's child; runuser exits with its status.
    const svc = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).find((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]) === s.proc.pid;
      } catch {
        return false;
      }
    });
    expect(svc).toBeDefined();
    expect(statSync(`/proc/${svc}`).uid).toBe(nobody);
    process.kill(svc!, 'SIGTERM');
    expect(await exited(s.proc)).toBe(0);
    await waitUntil(() => !alive(pid));
    expect(postgresOn(dir)).toEqual([]);
  });
});

describe('the child Postgres through its API', () => {
  it('stops a postmaster left running on its cluster by an earlier run, then starts', async () => {
    const dir = join(dataDir(), 'postgres');
    const first = await startChildPostgres(dir);
    await first.stop();
    // A postmaster with no guard, as if its guard had been killed with svc.
    const root = process.getuid?.() === 0;
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    const leftover = spawn(first.binaries.postgres, ['-D', join(dir, 'data'), '-c', 'listen_addresses=', '-c', `unix_socket_directories=${dir}`], {
      ...(root ? { uid: id('-u'), gid: id('-g') } : {}), detached: true, stdio: 'ignore',
    });
    procs.push(leftover);
    await waitUntil(() => existsSync(join(dir, 'data', 'postmaster.pid')) && readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').includes('ready'));
    const lines: string[] = [];
    const again = await startChildPostgres(dir, { log: (m) => lines.push(m) });
    expect(lines.join('\n')).toContain(`left running by an earlier start (pid ${leftover.pid})`);
    expect(alive(leftover.pid!)).toBe(false);
    expect(again.pid).not.toBe(leftover.pid);
    await again.stop();
    expect(postgresOn(join(dir, '..'))).toEqual([]);
  });

  it('refuses a data dir whose database another running svc holds, and leaves that one running', async () => {
    const dir = join(dataDir(), 'postgres');
    const first = await startChildPostgres(dir);
    try {
      await expect(startChildPostgres(dir)).rejects.toMatchObject({ code: 'embedded_postgres_in_use' });
      expect(alive(first.pid)).toBe(true);
    } finally {
      await first.stop();
    }
  });

  it('clears a stale postmaster.pid whose pid now belongs to another process', async () => {
    const dir = join(dataDir(), 'postgres');
    const first = await startChildPostgres(dir);
    await first.stop();
    const other = spawn('sleep', ['60']);
    procs.push(other);
    const file = join(dir, 'data', 'postmaster.pid');
    writeFileSync(file, `${other.pid}\n${join(dir, 'data')}\n`);
    const lines: string[] = [];
    const again = await startChildPostgres(dir, { log: (m) => lines.push(m) });
    expect(lines.join('\n')).toContain(`stale postmaster.pid (its pid ${other.pid}`);
    expect(postmasterPid(join(dir, '..'))).toBe(again.pid);
    await again.stop();
    other.kill();
  });

  it('reports a database that dies under a running node', async () => {
    const dir = dataDir();
    let crashed: number | null | undefined;
    const db = await createEmbeddedDb(dir, { log: createLogger('silent'), migrationsDir: MIGRATIONS_DIR, onCrash: (code) => (crashed = code) });
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    process.kill(postmasterPid(dir), 'SIGKILL');
    await waitUntil(() => crashed !== undefined);
    await db.close();
  });
});
