/** svc ai keys --response-store: the real CLI as a child process against a test server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';
import { runSvc } from './run-svc.ts';

let s: TestServer;
let admin: Record<string, string>;

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  admin = { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: s.url, SVC_TOKEN: ADMIN_TOKEN };
  expect((await s.api('POST', '/api/v1/teams', { name: 'store' })).statusCode).toBe(201);
});
afterAll(async () => s?.close());

describe('svc ai keys --response-store', () => {
  it('creates a key that keeps responses 7 days, then turns its store off', async () => {
    const created = await runSvc(['ai', 'keys', 'create', '--name', 'agent', '--team', 'store', '--response-store', '7d', '--json'], admin);
    expect(created.stderr).toBe('');
    const key = JSON.parse(created.stdout) as { id: string; response_store_ttl: string };
    expect(key.response_store_ttl).toBe('7d');
    const updated = await runSvc(['ai', 'keys', 'update', key.id, '--response-store', 'off'], admin);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/response store:\s+off/);
  });

  it('refuses a value outside off and 1d to 30d before calling the server', async () => {
    const r = await runSvc(['ai', 'keys', 'create', '--name', 'x', '--team', 'store', '--response-store', '31d'], admin);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--response-store must be off or a number of days from 1d to 30d');
  });
});
