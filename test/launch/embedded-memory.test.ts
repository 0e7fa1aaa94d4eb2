/**
 * A node serving on the embedded default replaces itself once with its memory settings (launch/embedded-memory.js):
 * same pid, the same arguments, V8's 8 MB young generation, its old generation's growing factor and glibc's malloc
 * thresholds; a node on a Postgres
 * server, another command, or settings the operator chose are left as they are.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const LAUNCH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'launch', 'embedded-memory.js');
const dir = mkdtempSync(join(tmpdir(), 'svc-embedded-memory-'));
const script = join(dir, 'entry.mjs');
writeFileSync(script, [
  `import { applyEmbeddedMemorySettings } from ${JSON.stringify(pathToFileURL(LAUNCH).href)};`,
  `console.log('start ' + process.pid);`,
  `applyEmbeddedMemorySettings(${JSON.stringify(script)});`,
  `console.log('ran ' + JSON.stringify({ pid: process.pid, execArgv: process.execArgv, args: process.argv.slice(2),`,
  `  mmap: process.env.MALLOC_MMAP_THRESHOLD_ ?? null, trim: process.env.MALLOC_TRIM_THRESHOLD_ ?? null }));`,
].join('\n'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Ran { pid: number; execArgv: string[]; args: string[]; mmap: string | null; trim: string | null }

function run(args: string[], env: Record<string, string> = {}, nodeFlags: string[] = []): { starts: number[]; ran: Ran } {
  const base = { ...process.env };
  for (const k of ['DATABASE_URL', 'NODE_OPTIONS', 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']) delete base[k];
  const r = spawnSync(process.execPath, [...nodeFlags, script, ...args], { env: { ...base, ...env }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const lines = r.stdout.trim().split('\n');
  return {
    starts: lines.filter((l) => l.startsWith('start ')).map((l) => Number(l.slice(6))),
    ran: JSON.parse(lines.find((l) => l.startsWith('ran '))!.slice(4)) as Ran,
  };
}

describe.skipIf(process.platform !== 'linux')('embedded memory settings', () => {
  it('serving on the embedded default: the process replaces itself once, same pid and arguments, with the settings', () => {
    const { starts, ran } = run(['serve', '--role', 'all']);
    expect(starts).toHaveLength(2);
    expect(new Set([...starts, ran.pid]).size).toBe(1);
    expect(ran.execArgv).toEqual(['--max-semi-space-size=8', '--heap-growing-percent=50']);
    expect(ran.args).toEqual(['serve', '--role', 'all']);
    expect([ran.mmap, ran.trim]).toEqual(['65536', '1048576']);
  });

  it('no command means serve', () => {
    expect(run([]).ran.execArgv).toContain('--max-semi-space-size=8');
  });

  it('on a Postgres server, or for migrate and journal, nothing changes', () => {
    for (const [args, env] of [[['serve'], { DATABASE_URL: 'postgres://db.example/svc' }], [['migrate'], {}], [['journal', 'drain'], {}]] as const) {
      const { starts, ran } = run([...args], env);
      expect(starts, args.join(' ')).toHaveLength(1);
      expect(ran.execArgv).toEqual([]);
      expect(ran.mmap).toBeNull();
    }
  });

  it("the operator's own choices win and nothing is replaced when they cover everything", () => {
    const own = { NODE_OPTIONS: '--max-semi-space-size=16', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '4194304' };
    const { starts, ran } = run(['serve'], own, ['--heap_growing_percent=100']);
    expect(starts).toHaveLength(1);
    expect(ran.execArgv).toEqual(['--heap_growing_percent=100']);
    expect([ran.mmap, ran.trim]).toEqual(['131072', '4194304']);
  });

  it('a partly chosen set is completed without overriding what was chosen', () => {
    const { starts, ran } = run(['serve'], { MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(starts).toHaveLength(2);
    expect(ran.execArgv).toEqual(['--max-semi-space-size=8', '--heap-growing-percent=50']);
    expect([ran.mmap, ran.trim]).toEqual(['131072', '1048576']);
    const young = run(['serve'], { NODE_OPTIONS: '--max-semi-space-size=16' });
    expect(young.starts).toHaveLength(2);
    expect(young.ran.execArgv).toEqual(['--heap-growing-percent=50']);
    const old = run(['serve'], {}, ['--heap-growing-percent=100']);
    expect(old.starts).toHaveLength(2);
    expect(old.ran.execArgv).toEqual(['--heap-growing-percent=100', '--max-semi-space-size=8']);
  });
});
