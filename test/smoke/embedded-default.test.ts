/**
 * The embedded default, as `npm start` runs it on a fresh machine: the real server process with no DATABASE_URL and
 * no REDIS_URL, Postgres as a child process with its cluster under the data dir, kept across restarts; SIGTERM exits
 * cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-smoke-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Started {
  proc: ChildProcess;
  url: string;
  output: () => string;
}

function start(): Promise<Started> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' };
  const proc = spawn(process.execPath, ['main.js', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${out}`)), 90_000);
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
    const poll = setInterval(() => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ proc, url: m[1], output: () => out });
      }
    }, 50);
  });
}

function stop(s: Started): Promise<number | null> {
  return new Promise((resolve) => {
    s.proc.removeAllListeners('exit');
    s.proc.on('exit', (code) => resolve(code));
    s.proc.kill('SIGTERM');
  });
}

describe('npm start on the embedded default', () => {
  it('starts, prints the admin token once, serves the API, keeps data across a restart, exits on SIGTERM', async () => {
    const first = await start();
    const token = /token:\s+(tk_\S+)/.exec(first.output())?.[1];
    expect(token, first.output()).toBeDefined();
    expect(first.output()).toContain('password:');

    const health = await (await fetch(`${first.url}/healthz`)).json();
    expect(health.checks.database).toMatchObject({ ok: true, kind: 'embedded' });
    expect(health.checks.counters).toMatchObject({ ok: true, kind: 'memory' });

    const created = await fetch(`${first.url}/api/v1/teams`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'smoke-team' }),
    });
    expect(created.status).toBe(201);
    expect(await stop(first)).toBe(0);

    const second = await start();
    expect(second.output()).not.toContain('password:');
    const teams = await (await fetch(`${second.url}/api/v1/teams`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(teams.items.map((t: { name: string }) => t.name)).toContain('smoke-team');
    expect(await stop(second)).toBe(0);
    // Two starts of the embedded database: 3 s here on the child Postgres (28 s once on PGlite on a loaded machine).
  }, 180_000);
});
