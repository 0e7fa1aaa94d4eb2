/**
 * The svc CLI end to end: the real binary as a child process against a listening test server, configured through
 * SVC_URL / SVC_TOKEN or the config file that `svc login` writes.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';
import { runSvc } from './run-svc.ts';

const PASSWORD = 'a long test password';
let s: TestServer;
let home: string;
/** The environment of a user whose config lives in $XDG_CONFIG_HOME/svc/config.json. */
let env: Record<string, string>;
let configFile: string;

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  for (const username of ['carol', 'dave']) {
    const res = await s.api('POST', '/api/v1/users', { username, password: PASSWORD });
    expect(res.statusCode).toBe(201);
  }
  home = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  env = { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg') };
  configFile = join(home, 'xdg', 'svc', 'config.json');
});
afterAll(async () => {
  await s?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const readConfig = () => JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, string>;
const admin = () => ({ ...env, SVC_URL: s.url, SVC_TOKEN: ADMIN_TOKEN });

describe('svc login, whoami, logout', () => {
  it('refuses a wrong password with the API message and writes nothing', async () => {
    const r = await runSvc(['login', '--url', s.url, '--user', 'carol', '--password-stdin'], env, 'wrong password\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The user name or password is wrong.');
    expect(r.stderr).toContain('invalid_credentials');
    expect(existsSync(configFile)).toBe(false);
  });

  it('logs in with --password-stdin and stores the token in the config file, mode 600', async () => {
    const r = await runSvc(['login', '--url', `${s.url}/`, '--user', 'carol', '--password-stdin'], env, `${PASSWORD}\n`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Logged in to ${s.url} as carol.`);
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    const cfg = readConfig();
    expect(cfg).toMatchObject({ url: s.url, user: 'carol' });
    expect(cfg.token).toMatch(/^eyJ/);
    expect(cfg.refresh_token).toMatch(/^rt_/);
    expect(r.stdout).not.toContain(cfg.token);
    expect(r.stdout).not.toContain(cfg.refresh_token);
  });

  it('whoami answers from the config file, as a table and as JSON', async () => {
    const human = await runSvc(['whoami'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/user:\s+carol/);
    expect(human.stdout).toMatch(/scope:\s+write/);
    const json = await runSvc(['whoami', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ username: 'carol', is_superuser: false, scope: 'write', url: s.url });
  });

  it('logging in again ends the previous session', async () => {
    const before = readConfig();
    const r = await runSvc(['login', '--url', s.url, '--user', 'carol', '--password-stdin', '--json'], env, PASSWORD);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ url: s.url, user: 'carol', scope: 'write' });
    const old = await runSvc(['whoami'], { ...env, SVC_TOKEN: before.token });
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('token_revoked');
    expect((await runSvc(['whoami'], env)).code).toBe(0);
  });

  it('SVC_CONFIG overrides the config path; without a terminal login needs its flags', async () => {
    const other = join(home, 'elsewhere.json');
    const r = await runSvc(['login', '--url', s.url, '--user', 'dave', '--password-stdin'], { ...env, SVC_CONFIG: other }, PASSWORD);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(other, 'utf8')).user).toBe('dave');
    expect(readConfig().user).toBe('carol');
    const who = await runSvc(['whoami', '--json'], { ...env, SVC_CONFIG: other });
    expect(JSON.parse(who.stdout).username).toBe('dave');
    const noFlags = await runSvc(['login'], env, PASSWORD);
    expect(noFlags.code).toBe(2);
    expect(noFlags.stderr).toContain('--url');
  });
});

describe('svc tokens', () => {
  let created: { id: string; token: string };

  it('creates a token and prints the secret once', async () => {
    const human = await runSvc(['tokens', 'create', '--name', 'laptop', '--ttl', '7d'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Token \(shown once, store it now\):\ntk_\S+\n/);
    const r = await runSvc(['tokens', 'create', '--name', 'ci', '--scope', 'deploy', '--ttl', '30d', '--json'], env);
    expect(r.code).toBe(0);
    created = JSON.parse(r.stdout);
    expect(created).toMatchObject({ name: 'ci', scope: 'deploy' });
    expect(created.token).toMatch(/^tk_/);
    const who = await runSvc(['whoami', '--json'], { ...env, SVC_URL: s.url, SVC_TOKEN: created.token });
    expect(JSON.parse(who.stdout)).toMatchObject({ username: 'carol', scope: 'deploy' });
  });

  it('lists tokens as a table and as JSON', async () => {
    const human = await runSvc(['tokens', 'list'], env);
    expect(human.code).toBe(0);
    expect(human.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+SCOPE\s+HINT\s+EXPIRES\s+LAST USED\s+REVOKED$/);
    expect(human.stdout).toMatch(new RegExp(`${created.id}\\s+ci\\s+deploy`));
    const json = JSON.parse((await runSvc(['tokens', 'list', '--json'], env)).stdout);
    expect(json.items.map((t: { id: string }) => t.id)).toContain(created.id);
    expect(JSON.stringify(json)).not.toContain(created.token);
    const page = JSON.parse((await runSvc(['tokens', 'list', '--limit', '1', '--json'], env)).stdout);
    expect(page.items).toHaveLength(1);
    expect(typeof page.next_cursor).toBe('string');
  });

  it('revokes a token; the revoked token is refused with the API message', async () => {
    const r = await runSvc(['tokens', 'revoke', created.id], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Revoked token ${created.id}`);
    const use = await runSvc(['whoami'], { ...env, SVC_TOKEN: created.token });
    expect(use.code).toBe(1);
    expect(use.stderr).toBe('error: The token has been revoked. (code token_revoked, HTTP 401)\n');
  });

  it('reports API refusals and usage errors with their exit status', async () => {
    const bad = await runSvc(['tokens', 'create', '--name', 'x', '--ttl', 'forever'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid_ttl');
    const missing = await runSvc(['tokens', 'create'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--name is required');
    const scope = await runSvc(['tokens', 'create', '--name', 'x', '--scope', 'admin'], env);
    expect(scope.code).toBe(2);
    const unknown = await runSvc(['tokens', 'frobnicate'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "frobnicate"');
    const notFound = await runSvc(['tokens', 'revoke', 'ffffffffffffffff', '--json'], env);
    expect(notFound.code).toBe(1);
    expect(JSON.parse(notFound.stderr).error).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('svc teams', () => {
  it('creates and lists teams', async () => {
    const r = await runSvc(['teams', 'create', 'payments'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Created team payments \([0-9a-f]+\)\.\n$/);
    const list = JSON.parse((await runSvc(['teams', 'list', '--json'], env)).stdout);
    expect(list.items.map((t: { name: string }) => t.name)).toEqual(['payments']);
    const human = await runSvc(['teams', 'list'], env);
    expect(human.stdout).toMatch(/^NAME\s+ID\s+LIMITS\s+CREATED\npayments\s+[0-9a-f]+\s+none\s+\d{4}-/);
    const dup = await runSvc(['teams', 'create', 'payments'], env);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('conflict');
  });

  it('shows limits to members and lets only administrators set them, keeping the ones not named', async () => {
    const show = await runSvc(['teams', 'limits', 'payments'], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/ai\.keys:\s+unlimited/);
    const refused = await runSvc(['teams', 'limits', 'payments', '--ai-keys', '5'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('superuser_required');

    await runSvc(['teams', 'limits', 'payments', '--ai-keys', '10', '--ai-tokens', '5000000'], admin());
    const set = await runSvc(['teams', 'limits', 'payments', '--errors-events', '7', '--json'], admin());
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ 'ai.keys': 10, 'ai.tokens': 5000000, 'errors.events': 7 });
    const cleared = await runSvc(['teams', 'limits', 'payments', '--ai-keys', 'none', '--json'], admin());
    expect(JSON.parse(cleared.stdout)).toEqual({ 'ai.tokens': 5000000, 'errors.events': 7 });
    const member = JSON.parse((await runSvc(['teams', 'limits', 'payments', '--json'], env)).stdout);
    expect(member).toEqual({ 'ai.tokens': 5000000, 'errors.events': 7 });
    const bad = await runSvc(['teams', 'limits', 'payments', '--ai-keys', '-3'], admin());
    expect(bad.code).toBe(2);
  });

  it('manages members', async () => {
    expect((await runSvc(['teams', 'add-member', 'payments', 'dave', '--role', 'viewer'], env)).code).toBe(0);
    const members = JSON.parse((await runSvc(['teams', 'members', 'payments', '--json'], env)).stdout);
    expect(members.items.map((m: { username: string; role: string }) => [m.username, m.role])).toEqual([['carol', 'owner'], ['dave', 'viewer']]);
    expect((await runSvc(['teams', 'remove-member', 'payments', 'dave'], env)).code).toBe(0);
  });
});

describe('failures and help', () => {
  it('a bad token exits 1 with the API message and code', async () => {
    const r = await runSvc(['teams', 'list'], { ...env, SVC_URL: s.url, SVC_TOKEN: 'tk_bogus' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: The token is not valid. (code invalid_token, HTTP 401)\n');
  });

  it('a refused connection names the URL it tried', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const r = await runSvc(['whoami'], { ...env, SVC_URL: `http://127.0.0.1:${port}`, SVC_TOKEN: 'tk_x' });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`http://127.0.0.1:${port}`);
    expect(r.stderr).toContain('connection refused');
  });

  it('without any token it says how to log in', async () => {
    const r = await runSvc(['teams', 'list'], { HOME: home, SVC_CONFIG: join(home, 'none.json'), SVC_URL: s.url });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('svc login');
  });

  it('has --help on every command', async () => {
    const commands = [[], ['login'], ['logout'], ['whoami'], ['tokens'], ['tokens', 'create'], ['tokens', 'list'], ['tokens', 'revoke'], ['teams'], ['teams', 'create'], ['teams', 'list'], ['teams', 'limits'], ['teams', 'members'], ['teams', 'add-member'], ['teams', 'remove-member']];
    const results = await Promise.all(commands.map((c) => runSvc([...c, '--help'], env)));
    results.forEach((r, i) => {
      expect(r.code, commands[i].join(' ')).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: svc${commands[i].length ? ` ${commands[i].join(' ')}` : ''} `));
    });
  });

  it('logout ends the stored session and forgets it', async () => {
    const token = readConfig().token;
    const r = await runSvc(['logout'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the session is ended');
    expect(readConfig()).toEqual({ url: s.url });
    const old = await runSvc(['whoami'], { ...env, SVC_TOKEN: token });
    expect(old.stderr).toContain('token_revoked');
    const again = await runSvc(['logout'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Not logged in');
  });
});
