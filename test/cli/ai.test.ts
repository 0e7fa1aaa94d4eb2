/**
 * svc ai keys | quota | usage end to end: the real CLI as a child process against a listening gateway with a fake
 * upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../support/test-server.ts';
import { startLimitsEnv, type LimitsEnv } from '../limits/limits-env.ts';
import { runSvc, SVC } from './run-svc.ts';

let env: LimitsEnv;
let admin: Record<string, string>;
let keyId: string;
let secret: string;

beforeAll(async () => {
  env = await startLimitsEnv();
  admin = { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: env.s.url, SVC_TOKEN: ADMIN_TOKEN };
});
afterAll(async () => env?.close());

describe('svc ai keys', () => {
  it('creates a key with a dollar budget and a daily limit, printing the secret once', async () => {
    const r = await runSvc(['ai', 'keys', 'create', '--name', 'ci-bot', '--team', 'lim', '--models', 'gpt-4o*,claude-*', '--budget', '12.50', '--daily', '2000'], admin);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/dollars per month:\s+\$12\.5/);
    expect(r.stdout).toMatch(/requests per day:\s+2000/);
    expect(r.stdout).toContain('Key (shown once, store it now):');
    secret = r.stdout.trim().split('\n').at(-1) as string;
    expect(secret).toMatch(/^sk-svc-[\w-]{20,}$/);
    keyId = /id:\s+(key_\w+)/.exec(r.stdout)?.[1] as string;
    const stored = (await env.s.api('GET', `/api/v1/keys/${keyId}`)).json();
    expect(stored).toMatchObject({ name: 'ci-bot', models: ['gpt-4o*', 'claude-*'], limits: { dollars_per_month: 12.5, requests_per_day: 2000 } });
  });

  it('refuses bad units on the command line before calling the server', async () => {
    const budget = await runSvc(['ai', 'keys', 'create', '--name', 'x', '--team', 'lim', '--budget', 'ten'], admin);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toContain('--budget must be an amount of dollars');
    const daily = await runSvc(['ai', 'keys', 'create', '--name', 'x', '--team', 'lim', '--daily', '-5'], admin);
    expect(daily.code).toBe(2);
    const noTeam = await runSvc(['ai', 'keys', 'create', '--name', 'x'], admin);
    expect(noTeam.code).toBe(2);
    expect(noTeam.stderr).toContain('--team');
  });

  it('passes the server refusal of an absurd limit through', async () => {
    const r = await runSvc(['ai', 'keys', 'create', '--name', 'x', '--team', 'lim', '--budget', '99999999'], admin);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('validation_failed');
  });

  it('warns about a model pattern that matches nothing, and still creates the key', async () => {
    const r = await runSvc(['ai', 'keys', 'create', '--name', 'odd', '--team', 'lim', '--models', 'gtp-5*', '--json'], admin);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning:');
    expect(JSON.parse(r.stdout).key).toMatch(/^sk-svc-/);
  });

  it('lists and shows keys without their secret', async () => {
    const list = await runSvc(['ai', 'keys', 'list', '--team', 'lim'], admin);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('ci-bot');
    expect(list.stdout).toContain('$12.5/month, 2,000/day');
    expect(list.stdout).not.toContain(secret);
    const show = await runSvc(['ai', 'keys', 'show', keyId, '--json'], admin);
    expect(JSON.parse(show.stdout)).toMatchObject({ id: keyId, log_bodies: 'off' });
  });

  it('updates one limit and keeps the others; none removes a limit', async () => {
    const r = await runSvc(['ai', 'keys', 'update', keyId, '--per-minute', '30', '--daily', 'none', '--log-bodies', '7d', '--json'], admin);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ limits: { dollars_per_month: 12.5, requests_per_minute: 30 }, log_bodies: '7d' });
    expect(JSON.parse(r.stdout).limits.requests_per_day).toBeUndefined();
    expect((await runSvc(['ai', 'keys', 'update', keyId], admin)).code).toBe(2);
  });
});

describe('svc ai quota and usage', () => {
  it('shows the quota of the key in OPENAI_API_KEY (or SVC_AI_KEY)', async () => {
    expect((await env.chatCall(secret)).status).toBe(200);
    await env.usage(keyId, 1);
    const r = await runSvc(['ai', 'quota'], { ...admin, SVC_TOKEN: '', OPENAI_API_KEY: secret });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/key:\s+ci-bot/);
    expect(r.stdout).toMatch(/dollars:\s+\$0\.00 spent of \$12\.50, \$12\.50 left/);
    expect(r.stdout).toMatch(/tokens:\s+20 spent, no budget/);
    expect(r.stdout).toMatch(/requests:\s+1 of 30 in the last minute, 29 left; no limit per day/);
    const json = await runSvc(['ai', 'quota', '--json'], { SVC_URL: env.s.url, SVC_AI_KEY: secret, OPENAI_API_KEY: 'sk-other' });
    expect(JSON.parse(json.stdout)).toMatchObject({ key: { id: keyId }, spent: { tokens: 20 } });
    const none = await runSvc(['ai', 'quota'], { SVC_URL: env.s.url });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('SVC_AI_KEY');
    const bad = await runSvc(['ai', 'quota'], { SVC_URL: env.s.url, SVC_AI_KEY: 'sk-svc-wrong' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid_api_key');
  });

  it('prints usage by model and key as a table', async () => {
    const r = await runSvc(['ai', 'usage', '--days', '7'], admin);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[1]).toMatch(/^MODEL\s+KEY\s+CALLS\s+INPUT\s+OUTPUT/);
    expect(lines.find((l) => l.startsWith('gpt-4o-mini'))).toMatch(/gpt-4o-mini\s+ci-bot\s+1\s+13\s+7/);
    expect(r.stdout).toMatch(/Total: 1 call, 20 tokens/);
    const json = await runSvc(['ai', 'usage', '--days', '1', '--by', 'model', '--json'], admin);
    expect(JSON.parse(json.stdout).group_by).toEqual(['model']);
  });

  it('fits the usage table to a narrow terminal, saying which columns it left out', async () => {
    // A real terminal of 60 columns (util-linux `script` gives the CLI a pseudo-terminal): stdout and stderr both land in it.
    const r = await runSvc(['-qec', `stty cols 60 rows 40; ${JSON.stringify(process.execPath)} ${JSON.stringify(SVC)} ai usage --days 7`, '/dev/null'], admin, undefined, 'script');
    expect(r.code).toBe(0);
    const lines = r.stdout.replace(/\r/g, '').split('\n');
    const table = lines.slice(lines.findIndex((l) => l.startsWith('MODEL')), lines.findIndex((l) => l.startsWith('Left out')));
    expect(Math.max(...table.map((l) => l.length)), r.stdout).toBeLessThanOrEqual(60);
    expect(lines.find((l) => l.startsWith('MODEL'))).toMatch(/^MODEL\s+KEY\s+CALLS\s+INPUT\s+OUTPUT\s+COST\s+ERRORS$/);
    expect(r.stdout).toContain('Left out to fit the terminal: p95 ms, p50 ms, cache r/w (a wider terminal or --json shows every column).');
  });

  it('deletes a key', async () => {
    const r = await runSvc(['ai', 'keys', 'delete', keyId], admin);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Deleted gateway key ${keyId}`);
    expect((await env.chatCall(secret)).status).toBe(401);
  });
});
