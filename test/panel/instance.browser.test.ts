/**
 * The instance page for superusers in headless Chromium: the service and its dependencies, every team's limits in
 * one table (changed in place), users created and read past the first page with "More users", the sign-in throttle
 * lifted, the instance's compression mode; a person who is no superuser neither sees it in the menu nor its
 * settings. On a 390 px wide window the page is not wider than the window (wide tables scroll inside themselves).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam, makeUser } from '../api/access-fixtures.ts';
import { ensurePanelBuilt, expectAccessible, haveChromium, launchChromium, screenshot, signIn } from './panel-browser.ts';

const PASSWORD = 'correct horse battery staple';

describe.skipIf(!haveChromium)('the instance page of the panel', () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensurePanelBuilt();
    s = await startTestServer({ listen: true });
    const team = await makeTeam(s, 'ops');
    await makeUser(s, 'bob', { [team]: 'member' });
    const root = await s.api('POST', '/api/v1/users', { username: 'root-ann', password: PASSWORD, is_superuser: true });
    expect(root.statusCode, root.body).toBe(201);
    // A wide table on a narrow window: the API tokens of root-ann.
    expect((await s.api('POST', '/api/v1/tokens', { name: 'ci-deploys-of-the-shop', scope: 'read', ttl: '30d', user: root.json().id })).statusCode).toBe(201);
    // More users than one page of the list (50).
    for (let i = 0; i < 50; i++) expect((await s.api('POST', '/api/v1/users', { username: `user-${String(i).padStart(2, '0')}`, password: PASSWORD })).statusCode).toBe(201);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const open = async (width: number, user: string) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await signIn(page, s.url, '/settings/instance', user, PASSWORD);
  };

  it('shows the service, sets a team limit in place, creates a user and pages the users', async () => {
    await open(1280, 'root-ann');
    await page.getByRole('table', { name: 'Dependencies' }).getByRole('row', { name: /database/ }).waitFor();
    expect(await page.getByLabel('This service').textContent()).toContain('control-plane');
    const limits = page.getByRole('table', { name: 'Team limits' });
    await limits.getByRole('button', { name: 'Change the limits of ops' }).click();
    await limits.getByLabel('Gateway keys').fill('3');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(() => limits.getByRole('row', { name: /ops/ }).textContent()).toContain('3 gateway keys');

    const users = page.getByRole('table', { name: 'Users' });
    await users.getByRole('row', { name: /root-ann/ }).waitFor();
    expect(await users.getByRole('row', { name: /user-49/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'More users' }).click();
    await users.getByRole('row', { name: /user-49/ }).waitFor();
    expect(await page.getByRole('button', { name: 'More users' }).count()).toBe(0);

    const create = page.getByRole('form', { name: 'Create a user' });
    await create.getByLabel('User name').fill('cleo');
    await create.getByLabel('Password').fill('short');
    await create.getByRole('button', { name: 'Create user' }).click();
    await create.getByLabel('Password').fill(PASSWORD);
    await create.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(async () => (await s.api('GET', '/api/v1/users?limit=100')).json().items.some((u: { username: string }) => u.username === 'cleo')).toBe(true);

    const lift = page.getByRole('form', { name: 'Lift the sign-in throttle' });
    await lift.getByLabel('User name').fill('bob');
    await lift.getByRole('button', { name: 'Lift the wait' }).click();
    await page.getByRole('status').filter({ hasText: 'Failed sign-ins forgotten for bob.' }).waitFor();
    expect(await page.getByText(/The instance's mode is/).textContent()).toMatch(/mode is (off|audit-only|on)/);
    await expectAccessible(page, 'instance');
    await screenshot(page, 'instance');
  });

  it('fits a 390 px window, on this page and every other', async () => {
    await open(390, 'root-ann');
    await page.getByRole('table', { name: 'Users' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'instance-narrow');
    const wide: string[] = [];
    for (const path of ['/ai', '/ai/keys', '/ai/usage', '/ai/accounts', '/ai/playground', '/ai/calls', '/ai/aliases', '/ai/prices', '/ai/compression', '/errors', '/settings/teams', '/settings/webhooks', '/settings/notifications', '/settings/tokens']) {
      await page.goto(`${s.url}${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 390) wide.push(`${path}: ${width} px`);
      await screenshot(page, `narrow${path.replaceAll('/', '-')}`);
    }
    expect(wide).toEqual([]);
    // A table wider than the window scrolls in its own frame, which the keyboard can reach.
    await page.goto(`${s.url}/ai/prices`);
    const frame = page.locator('.table-wrap').first();
    await frame.waitFor();
    expect(await frame.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await expectAccessible(page, 'prices, 390 px');
  });

  it('is not offered to a person who is no superuser', async () => {
    await open(1280, 'bob');
    await page.getByRole('heading', { name: 'Instance' }).waitFor();
    expect(await page.getByText('Only superusers see the instance\'s settings.').count()).toBe(1);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Instance' }).count()).toBe(0);
  });
});
