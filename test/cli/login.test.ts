/**
 * `svc login` end to end against a listening server: the device code approved in the panel (a session cookie, as
 * the /device page does), the access token refreshed by itself once 15 minutes have passed on the server's clock,
 * a copied refresh token revoking the session, and `svc logout` ending the session on the server.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { runSvc, SVC, type SvcResult } from './run-svc.ts';

const PASSWORD = 'a long test password';
const clock = new ManualClock(Date.now());
let s: TestServer;
let home: string;
let env: Record<string, string>;
let configFile: string;

beforeAll(async () => {
  s = await startTestServer({ listen: true, clock });
  expect((await s.api('POST', '/api/v1/users', { username: 'erin', password: PASSWORD })).statusCode).toBe(201);
  home = mkdtempSync(join(tmpdir(), 'svc-login-'));
  configFile = join(home, 'config.json');
  env = { HOME: home, SVC_CONFIG: configFile };
});
afterAll(async () => {
  await s?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const stored = () => JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, string>;

/** Runs `svc login` without --user and hands the printed code to `approve` while the CLI waits. */
function loginApprovedElsewhere(approve: (code: string) => Promise<void>): Promise<SvcResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC, 'login', '--url', s.url, '--json'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let approving = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const m = /approve the code ([B-Z]{4}-[B-Z]{4})/.exec(stderr);
      if (m && !approving) {
        approving = true;
        approve(m[1]).catch(reject);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('svc login with a device code', () => {
  it('waits for the approval in the panel, then stores the session', async () => {
    const r = await loginApprovedElsewhere(async (code) => {
      const signIn = await s.api('POST', '/api/v1/auth/login', { username: 'erin', password: PASSWORD }, { authorization: '' });
      const cookie = String(signIn.headers['set-cookie']).split(';')[0];
      const shown = await s.api('GET', `/api/v1/auth/device?code=${code}`, undefined, { authorization: '', cookie, 'sec-fetch-site': 'same-origin' });
      expect(shown.json()).toMatchObject({ user_code: code, scope: 'write' });
      const ok = await s.api('POST', '/api/v1/auth/device/approve', { user_code: code }, { authorization: '', cookie, 'sec-fetch-site': 'same-origin' });
      expect(ok.statusCode, ok.body).toBe(200);
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${s.url}/device?code=`);
    expect(JSON.parse(r.stdout)).toMatchObject({ url: s.url, user: 'erin', scope: 'write', expires_in: 900 });
    expect(stored()).toMatchObject({ url: s.url, user: 'erin', token: expect.stringMatching(/^eyJ/), refresh_token: expect.stringMatching(/^rt_/) });
  }, 30_000);

  it('refreshes the access token by itself once it has expired', async () => {
    const before = stored();
    clock.advance(16 * 60_000);
    const who = await runSvc(['whoami', '--json'], env);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ username: 'erin' });
    const after = stored();
    expect(after.token).not.toBe(before.token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
  });

  it('a copied refresh token used after the real one revokes the session', async () => {
    const copy = join(home, 'copy.json');
    copyFileSync(configFile, copy);
    clock.advance(16 * 60_000);
    expect((await runSvc(['whoami'], env)).code).toBe(0);
    clock.advance(16 * 60_000);
    const thief = await runSvc(['whoami'], { ...env, SVC_CONFIG: copy });
    expect(thief.code).toBe(1);
    expect(thief.stderr).toContain('svc login');
    // The real owner's session is gone too: reuse ends the whole session.
    const owner = await runSvc(['whoami'], env);
    expect(owner.code).toBe(1);
    expect(owner.stderr).toMatch(/token_revoked|svc login/);
  });

  it('svc logout ends the session on the server', async () => {
    const r = await runSvc(['login', '--url', s.url, '--user', 'erin', '--password-stdin'], env, PASSWORD);
    expect(r.code, r.stderr).toBe(0);
    const token = stored().token;
    const out = await runSvc(['logout', '--json'], env);
    expect(JSON.parse(out.stdout)).toMatchObject({ logged_out: true, revoked: true });
    const after = await s.api('GET', '/api/v1/users/me', undefined, { authorization: `Bearer ${token}` });
    expect(after.json().error.code).toBe('token_revoked');
  });
});
