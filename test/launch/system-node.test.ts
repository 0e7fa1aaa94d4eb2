/**
 * svc on a machine whose own node is older than 24 (the system's /usr/bin/node here, Node 20): `npm start` runs on
 * the Node 24 that npm install linked into node_modules/.bin, `node main.js` and the `svc` command run themselves
 * again under it, and where no Node 24 can be found each stops with one sentence naming the version and how to get it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '../../core/ids.ts';
import { spawnNode, type NodeCommand } from '../support/spawn-node.ts';
import { createTestDatabase, REAL_PG, REAL_REDIS, type TestDatabase } from '../support/test-db.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SYSTEM_NODE = process.env.SVC_TEST_SYSTEM_NODE || '/usr/bin/node';
const systemMajor = existsSync(SYSTEM_NODE) ? Number(execFileSync(SYSTEM_NODE, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' })) : 0;
const older = systemMajor >= 18 && systemMajor < 24;
if (!older) console.warn(`system-node tests skipped: ${SYSTEM_NODE} is not a Node from 18 to 23`);
// The system's node and npm first, nothing of this runner's Node 24.
const SYSTEM_PATH = `${dirname(SYSTEM_NODE)}:/bin`;
// A start through npm and a second node takes longer than a test's usual time on a loaded machine.
const START_TIMEOUT = 120_000;
const NEEDS_24 = /^svc needs Node\.js 24 and this is Node\.js \d+\.\d+\.\d+: .*npm install.*\n$/;

describe.skipIf(!older)(`svc under the system's Node ${systemMajor}`, () => {
  let tdb: TestDatabase | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    tdb = REAL_PG ? await createTestDatabase() : undefined;
    env = { PATH: SYSTEM_PATH, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY };
    if (tdb) env.DATABASE_URL = tdb.url as string;
    if (REAL_REDIS) Object.assign(env, { REDIS_URL: REAL_REDIS, SVC_REDIS_PREFIX: `t${randomHex(4)}:` });
  });

  afterAll(async () => {
    await tdb?.db.close();
    await tdb?.drop();
  });

  async function servesAndStops(how: NodeCommand): Promise<void> {
    const node = await spawnNode('all', env, how);
    const health = await fetch(`${node.url}/healthz`);
    const stopped = await node.stop();
    expect(health.status).toBe(200);
    expect(stopped, node.output()).toBe(0);
  }

  it('npm start serves and stops cleanly on SIGTERM', async () => {
    // `exec` in the start script makes npm's forwarded SIGTERM reach the server itself.
    await servesAndStops({ command: join(dirname(SYSTEM_NODE), 'npm'), args: ['start', '--silent'] });
  }, START_TIMEOUT);

  it('node main.js runs again under Node 24, which gets the forwarded SIGTERM', async () => {
    await servesAndStops({ command: SYSTEM_NODE, args: [join(ROOT, 'main.js'), 'serve', '--role', 'all'] });
  }, START_TIMEOUT);

  it('the svc command runs under Node 24', () => {
    const run = spawnSync(SYSTEM_NODE, [join(ROOT, 'cli', 'svc.js'), '--version'], { env: { PATH: SYSTEM_PATH }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\d+\.\d+\.\d+/);
    expect(run.status).toBe(0);
  });

  it('without a Node 24 to run, main.js, the svc command and the test check stop with one sentence', () => {
    // The launcher and both entry points in a folder with no node_modules: no platform package to be found.
    const bare = mkdtempSync(join(tmpdir(), 'svc-bare-'));
    try {
      for (const dir of ['launch', 'cli']) mkdirSync(join(bare, dir));
      for (const file of ['main.js', 'launch/node-24.js', 'launch/embedded-memory.js', 'launch/check-node-24.js', 'cli/svc.js']) copyFileSync(join(ROOT, file), join(bare, file));
      writeFileSync(join(bare, 'package.json'), '{"type":"module"}');
      for (const script of ['main.js', 'cli/svc.js', 'launch/check-node-24.js']) {
        const run = spawnSync(SYSTEM_NODE, [join(bare, script), 'serve'], { env: { PATH: SYSTEM_PATH }, encoding: 'utf8' });
        expect(run.stderr, script).toMatch(NEEDS_24);
        expect(run.stdout, script).toBe('');
        expect(run.status, script).toBe(1);
      }
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
