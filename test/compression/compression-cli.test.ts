/** svc ai keys --compression and svc teams compression: the real CLI as a child process against a test server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';
import { runSvc } from '../cli/run-svc.ts';

let s: TestServer;
let admin: Record<string, string>;

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  admin = { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: s.url, SVC_TOKEN: ADMIN_TOKEN };
  expect((await s.api('POST', '/api/v1/teams', { name: 'cmp' })).statusCode).toBe(201);
});
afterAll(async () => s?.close());

describe('svc --compression', () => {
  it('creates and updates a key with a compression mode, and inherit clears it', async () => {
    const created = await runSvc(['ai', 'keys', 'create', '--name', 'agent', '--team', 'cmp', '--compression', 'audit-only', '--json'], admin);
    expect(created.stderr).toBe('');
    const key = JSON.parse(created.stdout) as { id: string; compression: string | null };
    expect(key.compression).toBe('audit-only');
    const updated = await runSvc(['ai', 'keys', 'update', key.id, '--compression', 'inherit'], admin);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/compression:\s+inherit/);
    expect((await s.api('GET', `/api/v1/keys/${key.id}`)).json()).toMatchObject({ compression: null });
  });

  it('shows and sets a team mode', async () => {
    const set = await runSvc(['teams', 'compression', 'cmp', '--compression', 'off'], admin);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/compression:\s+off/);
    const shown = await runSvc(['teams', 'compression', 'cmp', '--json'], admin);
    expect(JSON.parse(shown.stdout)).toMatchObject({ mode: 'off' });
  });

  it('refuses an unknown mode before calling the server', async () => {
    const r = await runSvc(['teams', 'compression', 'cmp', '--compression', 'max'], admin);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--compression must be off, audit-only, on or inherit');
  });
});
