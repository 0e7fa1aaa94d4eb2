/**
 * A private Postgres for tests that stop, restart or cut a database: initdb into a temporary directory (trust auth,
 * superuser `root`), its own port on 127.0.0.1, one database `svc`. The shared server is never touched.
 *
 * Postgres refuses to run as root: when the tests run as root, initdb and pg_ctl run as the `postgres` user through
 * `runuser` and the directory is handed to that user. Data survives stop()/start()/restart() until cleanup().
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.ts';

const run = promisify(execFile);
const AS_ROOT = process.getuid?.() === 0;
const PG_USER = 'postgres';

export interface ThrowawayPostgres {
  /** postgres://root@127.0.0.1:<port>/svc */
  url: string;
  port: number;
  /** Stops the server; 'immediate' is a crash (no checkpoint), 'fast' a clean shutdown that disconnects clients. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Ends the backends of the test database (only those with this application_name when given); returns how many. */
  terminateBackends(applicationName?: string): Promise<number>;
  /** Stops the server if it runs and deletes its directory. */
  cleanup(): Promise<void>;
}

async function asPg(cmd: string, args: string[]): Promise<string> {
  const [file, argv] = AS_ROOT ? ['runuser', ['-u', PG_USER, '--', cmd, ...args]] : [cmd, args];
  const { stdout } = await run(file, argv, { timeout: 60_000 });
  return stdout;
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  if (AS_ROOT) {
    const { stdout } = await run('id', ['-u', PG_USER]);
    const { stdout: gid } = await run('id', ['-g', PG_USER]);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await asPg('initdb', ['-D', data, '-A', 'trust', '-U', 'root', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  // fsync off: a test crashes the server process, never the machine, so the page cache keeps every write.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  let running = false;
  const start = async () => {
    await asPg('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
    running = true;
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    if (!running) return;
    await asPg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
    running = false;
  };
  await start();
  const admin = `postgres://root@127.0.0.1:${port}/postgres`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query('CREATE DATABASE svc');
  await c.end();

  return {
    url: `postgres://root@127.0.0.1:${port}/svc`,
    port,
    stop,
    start,
    async restart(mode = 'fast') {
      await stop(mode);
      await start();
    },
    async terminateBackends(applicationName?: string) {
      const client = new pg.Client({ connectionString: admin, application_name: 'throwaway-admin' });
      await client.connect();
      try {
        const r = await client.query<{ n: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
            WHERE datname = 'svc' AND pid <> pg_backend_pid() AND ($1::text IS NULL OR application_name = $1)`,
          [applicationName ?? null],
        );
        return r.rows[0].n;
      } finally {
        await client.end();
      }
    },
    async cleanup() {
      await stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
