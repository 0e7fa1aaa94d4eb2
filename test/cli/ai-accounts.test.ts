/**
 * svc ai accounts add | sign-in | list | show | refresh end to end: the real CLI as a child process against a
 * listening gateway whose provider profiles point at fake plan providers. The test plays the person: it reads the
 * sign-in URL the CLI prints, approves it at the fake provider and pastes the callback URL into the CLI's stdin.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../support/test-server.ts';
import { startPlanEnv, type PlanEnv } from '../subscriptions/plan-env.ts';
import { runSvc, SVC, type SvcResult } from './run-svc.ts';

let g: PlanEnv;
let admin: Record<string, string>;

beforeAll(async () => {
  g = await startPlanEnv();
  admin = { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: g.s.url, SVC_TOKEN: ADMIN_TOKEN };
});
afterAll(async () => g?.close());

/** Runs the CLI; when stderr shows `waitFor`, `answer` decides what to type into stdin (then stdin closes). */
function interact(args: string[], waitFor: RegExp, answer: (match: RegExpExecArray) => string | Promise<string>): Promise<SvcResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC, ...args], { env: { PATH: process.env.PATH ?? '', ...admin }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let answered = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', async (d: string) => {
      stderr += d;
      const m = waitFor.exec(stderr);
      if (m && !answered) {
        answered = true;
        child.stdin.end(`${await answer(m)}\n`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const URL_LINE = /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m;

describe('svc ai accounts add', () => {
  it('signs a Claude plan in: prints the URL, takes the pasted callback URL', async () => {
    const r = await interact(['ai', 'accounts', 'add', 'claude', '--name', 'cli-claude', '--models', 'claude-sonnet-4-5', '--weight', '2'], URL_LINE,
      (m) => g.fakes.claude.oauth.authorize(m[1]).callbackUrl);
    expect(r.stderr).toContain('Open this address in a browser');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/kind:\s+subscription/);
    expect(r.stdout).toMatch(/signed in as:\s+person@example\.com/);
    expect((await g.messages('claude-sonnet-4-5', 'via cli')).status).toBe(200);
  });

  it('signs a ChatGPT plan in with the device flow, waiting until the code is entered', async () => {
    const r = await interact(['ai', 'accounts', 'add', 'chatgpt', '--device', '--name', 'cli-device', '--json'], /enter the code (\S+)\./, (m) => {
      g.fakes.chatgpt.oauth.approveDevice(m[1]);
      return '';
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'cli-device', provider: 'openai', kind: 'subscription', plan: 'plus' });
  });

  it('adds an API-key account with the key from stdin', async () => {
    const r = await runSvc(['ai', 'accounts', 'add', 'anthropic', '--name', 'cli-key'], admin, 'sk-ant-api-0123456789abcdef\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/kind:\s+api_key/);
  });

  it('refuses garbage pasted instead of a code, and an unknown provider', async () => {
    const r = await interact(['ai', 'accounts', 'add', 'claude', '--name', 'cli-garbage'], URL_LINE, () => 'I closed the tab, sorry');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('code oauth_callback_invalid, HTTP 400');
    const u = await runSvc(['ai', 'accounts', 'add', 'mistral'], admin);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('Unknown provider "mistral"');
  });
});

describe('svc ai accounts list | show | refresh | sign-in', () => {
  it('lists accounts, shows and refreshes quota windows, and signs an account in again', async () => {
    const list = await runSvc(['ai', 'accounts', 'list', '--json'], admin);
    const items = JSON.parse(list.stdout).items as { id: string; name: string }[];
    const id = items.find((a) => a.name === 'cli-claude')?.id as string;
    expect(id).toMatch(/^acc_/);
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 40, resets_at: new Date(Date.now() + 3_600_000).toISOString() } } };
    const refresh = await runSvc(['ai', 'accounts', 'refresh', id], admin);
    expect(refresh.code, refresh.stderr).toBe(0);
    expect(refresh.stdout).toMatch(/five_hour\s+all\s+40%/);
    const show = await runSvc(['ai', 'accounts', 'show', id], admin);
    expect(show.stdout).toMatch(/quota read:\s+\S+ from usage_endpoint/);

    await g.s.db.query("UPDATE provider_accounts SET state = 'needs_sign_in' WHERE id = $1", [id]);
    const again = await interact(['ai', 'accounts', 'sign-in', id], URL_LINE, (m) => g.fakes.claude.oauth.authorize(m[1]).code);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('state active');
  });
});
