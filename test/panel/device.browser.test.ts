/**
 * The panel's device sign-in page in headless Chromium: the link `svc login` prints leads through sign-in to the
 * request (client and scope), Approve lets the waiting client's poll succeed, Deny refuses it; axe-core on the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createUser, PASSWORD } from '../api/identity-fixtures.ts';
import { DEVICE_GRANT, oauthPost } from '../identity/access-token-fixtures.ts';
import { ensurePanelBuilt, expectAccessible, haveChromium, launchChromium, screenshot, signIn } from './panel-browser.ts';

describe.skipIf(!haveChromium)('the device sign-in page', () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensurePanelBuilt();
    s = await startTestServer({ listen: true });
    await createUser(s, 'ada');
    browser = await launchChromium();
    const context = await browser.newContext({ colorScheme: 'light', viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const start = async (scope: string) => (await oauthPost(s, '/oauth/device_authorization', { client_name: 'svc login on build-box', scope })).json() as { device_code: string; user_code: string; verification_uri_complete: string };
  const poll = (deviceCode: string) => oauthPost(s, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode });

  it('approves the code of the printed link after signing in', async () => {
    const d = await start('deploy');
    const path = new URL(d.verification_uri_complete).pathname + new URL(d.verification_uri_complete).search;
    await signIn(page, s.url, path, 'ada', PASSWORD);
    await page.getByLabel('Code').waitFor();
    expect(await page.getByLabel('Code').inputValue()).toBe(d.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    const request = page.getByRole('group', { name: 'Sign-in request' });
    await request.waitFor();
    expect(await request.textContent()).toContain('svc login on build-box asks to sign in as you');
    expect(await request.textContent()).toContain('Scope deploy');
    await expectAccessible(page, 'device approval');
    await screenshot(page, 'device-approval');
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Signed in.');
    const tokens = await poll(d.device_code);
    expect(tokens.statusCode, tokens.body).toBe(200);
    expect(tokens.json().scope).toBe('deploy');
  });

  it('denies, and says so for a mistyped code', async () => {
    await page.goto(`${s.url}/device`);
    await page.getByLabel('Code').fill('BBBB-CCCC');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('No sign-in is waiting for this code');
    const d = await start('read');
    await page.getByLabel('Code').fill(d.user_code.toLowerCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Denied.');
    expect((await poll(d.device_code)).json().error).toBe('access_denied');
  });
});
