/**
 * The web panel in headless Chromium against a real listening server: sign in with a password (a wrong one first),
 * land on the deep link asked for, create a gateway key and read its secret once, see it listed, reload the deep
 * link, change it, revoke it, lose the session and come back to the page after signing in again, sign out; axe-core on every
 * page. Skipped, with a message, when /usr/bin/chromium is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam, makeUser } from '../api/access-fixtures.ts';
import { startReceiver } from '../api/webhook-receiver.ts';
import { ensurePanelBuilt, expectAccessible, haveChromium, launchChromium, screenshot, screenshotDir } from './panel-browser.ts';

const PASSWORD = 'correct horse battery staple';
if (!haveChromium) console.warn('panel browser tests skipped: /usr/bin/chromium is missing (install Debian\'s chromium package to run them)');

describe.skipIf(!haveChromium)('the web panel in Chromium', () => {
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    await ensurePanelBuilt();
    // The webhook receiver listens on the loopback.
    s = await startTestServer({ listen: true, env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true', SVC_SIGNIN_MAX_FAILURES_PER_USER: '2' } });
    const team = await makeTeam(s, 'web');
    await makeUser(s, 'ada', { [team]: 'owner' });
    browser = await launchChromium();
    context = await browser.newContext({ colorScheme: 'light', viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
  }, 180_000);
  afterAll(async () => {
    console.info(`panel screenshots: ${screenshotDir}`);
    await browser?.close();
    await s?.close();
  });

  it('sends a signed-out visitor to sign in, refuses a wrong password, then returns to the page asked for', async () => {
    await page.goto(`${s.url}/ai/keys`);
    await page.waitForURL(/\/sign-in\?next=%2Fai%2Fkeys$/);
    // A first visit is not an ended session.
    expect(await page.getByText('Your session has ended').count()).toBe(0);
    await expectAccessible(page, 'sign-in');
    await page.getByLabel('User name').fill('ada');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The user name or password is wrong.');
    await screenshot(page, 'sign-in-refused');
    // Past the throttle (two failures per user name here) the refusal says how long to wait.
    await page.getByLabel('User name').fill('eve');
    for (let i = 0; i < 3; i++) {
      await page.getByLabel('Password').fill(`guess ${i}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
    }
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Too many failed sign-in attempts .*try again in \d+ minutes?/);
    await page.getByLabel('User name').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${s.url}/ai/keys`);
    await page.getByRole('heading', { name: 'No gateway keys yet' }).waitFor();
    await expectAccessible(page, 'keys (empty)');
    await screenshot(page, 'keys-empty');
  });

  it('creates a key, shows its secret once, lists it, and keeps the page on reload', async () => {
    await page.getByRole('button', { name: 'Create your first key' }).click();
    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Name').fill('   ');
    await form.getByRole('button', { name: 'Create' }).click();
    // The API's refusal is shown beside the field it names, and the field is marked invalid.
    await expect.poll(() => form.getByRole('alert').textContent()).toBe('The key name must not be blank.');
    expect(await form.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'keys-refused');
    await form.getByLabel('Name').fill('checkout');
    await form.getByLabel('Calls per minute').fill('60');
    await form.getByRole('button', { name: 'Create' }).click();
    const secret = page.getByLabel('Secret', { exact: true });
    await expect.poll(() => secret.textContent()).toMatch(/^sk-svc-/);
    const table = page.getByRole('table', { name: 'Gateway keys' });
    await table.getByRole('cell', { name: 'checkout', exact: true }).waitFor();
    expect(await table.textContent()).toContain('60 calls/min');
    await expectAccessible(page, 'keys (created)');
    await screenshot(page, 'keys-created');

    const stored = (await s.api('GET', '/api/v1/keys')).json().items;
    expect(stored.map((k: { name: string }) => k.name)).toEqual(['checkout']);

    await page.reload();
    await table.getByRole('cell', { name: 'checkout', exact: true }).waitFor();
    expect(await page.getByLabel('Secret', { exact: true }).count()).toBe(0);
    expect(page.url()).toBe(`${s.url}/ai/keys`);
  });

  it('changes a key: limits and disabled', async () => {
    await page.getByRole('button', { name: 'Edit checkout' }).click();
    const form = page.getByRole('form', { name: 'Edit the key checkout' });
    expect(await form.getByLabel('Calls per minute').inputValue()).toBe('60');
    await form.getByLabel('Calls per minute').fill('120');
    await form.getByRole('checkbox', { name: /Disabled/ }).check();
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    const row = page.getByRole('table', { name: 'Gateway keys' }).getByRole('row', { name: /checkout/ });
    await expect.poll(() => row.textContent()).toContain('120 calls/min');
    expect(await row.textContent()).toContain('disabled');
    expect((await s.api('GET', '/api/v1/keys')).json().items[0]).toMatchObject({ disabled: true, limits: { requests_per_minute: 120 } });
  });

  it('shows the overview and switches to the dark theme', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'AI overview' }).waitFor();
    await page.getByRole('heading', { name: 'No gateway calls this month' }).waitFor();
    await expectAccessible(page, 'overview');
    await page.getByRole('button', { name: /^Theme: system/ }).click();
    await page.getByRole('button', { name: /^Theme: light/ }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await expectAccessible(page, 'overview (dark)');
    await screenshot(page, 'overview-dark');
    await page.getByRole('button', { name: /^Theme: dark/ }).click();
  });

  it('revokes a key', async () => {
    await page.goto(`${s.url}/ai/keys`);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revoke checkout' }).click();
    await page.getByRole('heading', { name: 'No gateway keys yet' }).waitFor();
    expect((await s.api('GET', '/api/v1/keys')).json().items).toEqual([]);
  });

  it('creates an API token, shows it once, and revokes it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' }).click();
    // makeUser gave ada a token already.
    await page.getByRole('table', { name: 'API tokens' }).getByRole('cell', { name: 'ada-write', exact: true }).first().waitFor();
    const form = page.getByRole('form', { name: 'Create a token' });
    await form.getByLabel('Name').fill('ci');
    await form.getByLabel('Scope').selectOption('deploy');
    await form.getByRole('button', { name: 'Create token' }).click();
    const token = page.getByLabel('Token', { exact: true });
    await expect.poll(() => token.textContent()).toMatch(/^tk_/);
    const me = await fetch(`${s.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${await token.textContent()}` } });
    expect((await me.json()).scope).toBe('deploy');
    await page.getByRole('table', { name: 'API tokens' }).getByRole('cell', { name: 'ci', exact: true }).waitFor();
    await expectAccessible(page, 'tokens');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revoke ci' }).click();
    await page.getByRole('cell', { name: 'ci', exact: true }).waitFor({ state: 'detached' });
    expect((await s.api('GET', '/api/v1/tokens?user=ada')).json().items.find((t: { name: string }) => t.name === 'ci').revoked_at).not.toBeNull();
  });

  it('manages a team\'s members: add, change a role, remove; an unknown user name is refused', async () => {
    const bob = await s.api('POST', '/api/v1/users', { username: 'bob', password: PASSWORD });
    expect(bob.statusCode, bob.body).toBe(201);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Teams' }).click();
    const add = page.getByRole('form', { name: 'Add a member to web' });
    await add.getByLabel('User name').fill('nobody');
    await add.getByRole('button', { name: 'Add member' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('"nobody" was not found');
    await add.getByLabel('User name').fill('bob');
    await add.getByLabel('Role').selectOption('viewer');
    await add.getByRole('button', { name: 'Add member' }).click();
    const members = page.getByRole('table', { name: 'Members of web' });
    await members.getByRole('cell', { name: 'bob', exact: true }).waitFor();
    await members.getByLabel('Role of bob').selectOption('member');
    await expect.poll(async () => (await s.api('GET', '/api/v1/teams/web/members')).json().items.find((m: { username: string }) => m.username === 'bob')?.role).toBe('member');
    await expectAccessible(page, 'teams');
    page.once('dialog', (d) => void d.accept());
    await members.getByRole('button', { name: 'Remove bob' }).click();
    await members.getByRole('cell', { name: 'bob', exact: true }).waitFor({ state: 'detached' });
  });

  it('creates a webhook (secret shown once), sends it a test and shows the delivery', async () => {
    const receiver = await startReceiver();
    try {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
      const form = page.getByRole('form', { name: 'Create a webhook' });
      await form.getByLabel('URL').fill(`${receiver.url}/hook`);
      await form.getByRole('button', { name: 'Create webhook' }).click();
      await expect.poll(() => page.getByLabel('Signing secret', { exact: true }).textContent()).toMatch(/\S{16,}/);
      const card = page.getByRole('article', { name: `Webhook to ${receiver.url}/hook` });
      await card.getByRole('button', { name: 'Send a test event' }).click();
      await expect.poll(() => receiver.requests.length, { timeout: 20_000 }).toBeGreaterThan(0);
      expect(receiver.requests[0].headers['x-svc-signature']).toMatch(/^t=\d+,v1=/);
      await expect.poll(async () => {
        await card.getByRole('button', { name: 'Refresh deliveries' }).click();
        return card.getByRole('table').textContent();
      }, { timeout: 20_000 }).toMatch(/webhook\.test\s*delivered/);
      await expectAccessible(page, 'webhooks');
      await screenshot(page, 'webhooks');
    } finally {
      await receiver.close();
    }
  });

  it('refuses a cross-site write made with the session cookie', async () => {
    const cookies = await context.cookies(s.url);
    const session = cookies.find((c) => c.httpOnly && c.sameSite === 'Strict');
    expect(session).toBeDefined();
    const res = await fetch(`${s.url}/api/v1/keys?team=web`, {
      method: 'POST',
      headers: { cookie: `${session!.name}=${session!.value}`, origin: 'http://attacker.example', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'forged' }),
    });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('cross_site_request');
  });

  it('sends an expired session to sign in, then back to the page it was going to', async () => {
    await context.clearCookies();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    await page.waitForURL(/\/sign-in\?next=%2Fai%2Fusage$/);
    expect(await page.getByRole('status').textContent()).toContain('Your session has ended');
    await page.getByLabel('User name').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${s.url}/ai/usage`);
    await page.getByRole('heading', { name: 'No gateway calls in this range' }).waitFor();
    await expectAccessible(page, 'usage (empty)');
  });

  it('signs out: the session ends and the panel asks to sign in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in$/);
    await page.goto(`${s.url}/errors`);
    await page.waitForURL(/\/sign-in\?next=%2Ferrors$/);
    expect((await context.cookies(s.url)).filter((c) => c.value !== '')).toEqual([]);
  });
});
