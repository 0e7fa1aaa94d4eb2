/**
 * The error pages in headless Chromium: a project with no issue shows its DSN and how to send a first event; an
 * exception sent with @sentry/node appears in the issue list; its page shows the stack trace with in-app frames
 * marked and open, breadcrumbs and tags; resolving it from the panel changes it in the API; the project page lists the
 * release, refuses a bad limit beside its field and rotates the DSN. axe-core on each page.
 */
import * as Sentry from '@sentry/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam, makeUser } from '../api/access-fixtures.ts';
import { createTeamProject, waitFor, type Project } from '../errors/support/errors-fixtures.ts';
import { ensurePanelBuilt, expectAccessible, haveChromium, launchChromium, screenshot, signIn } from './panel-browser.ts';

describe.skipIf(!haveChromium)('the error pages of the panel', () => {
  let s: TestServer;
  let p: Project;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensurePanelBuilt();
    s = await startTestServer({ listen: true });
    const team = await makeTeam(s, 'shop');
    await makeUser(s, 'grace', { [team]: 'admin' });
    p = await createTeamProject(s, 'shop', { name: 'checkout' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await signIn(page, s.url, '/errors', 'grace', 'correct horse battery staple');
  }, 180_000);
  afterAll(async () => {
    await Sentry.close(2000);
    await browser?.close();
    await s?.close();
  });

  it('shows the DSN and an SDK snippet while the project has no issue', async () => {
    await page.getByRole('heading', { name: 'No issues yet: send your first event' }).waitFor();
    expect(await page.getByLabel('DSN', { exact: true }).textContent()).toBe(p.dsn);
    expect(await page.getByLabel('Node snippet').textContent()).toContain(`Sentry.init({ dsn: '${p.dsn}' })`);
    await page.getByRole('button', { name: 'Python' }).click();
    expect(await page.getByLabel('Python snippet').textContent()).toContain('sentry_sdk.init');
    await expectAccessible(page, 'issues (empty)');
    await screenshot(page, 'issues-empty');
  });

  it('lists an exception sent with @sentry/node and shows its stack trace with in-app frames marked', async () => {
    Sentry.init({ dsn: p.dsn, release: 'shop@3.0.0', environment: 'production', defaultIntegrations: false });
    Sentry.addBreadcrumb({ category: 'cart', message: 'added 2 items', level: 'info' });
    Sentry.setTag('region', 'eu-west');
    function applyCoupon(code: string): never {
      throw new TypeError(`coupon ${code} has expired`);
    }
    try {
      applyCoupon('SPRING');
    } catch (e) {
      Sentry.captureException(e);
    }
    await Sentry.flush(5000);
    await waitFor(async () => (await s.api('GET', `/api/v1/projects/${p.id}/issues`)).json().items.length === 1, 20_000);

    await page.reload();
    const link = page.getByRole('link', { name: /TypeError: coupon SPRING has expired/ });
    await link.waitFor();
    // The list asks for every issue's hourly counts in one query; the row's sparkline names its figures.
    const row = page.getByRole('table', { name: 'Issues' }).getByRole('row', { name: /coupon SPRING/ });
    expect(await row.getByRole('img', { name: 'Events per hour, last 24 hours: 1 in all, at most 1 in an hour' }).count()).toBe(1);
    expect((await s.api('GET', `/api/v1/projects/${p.id}/issues?hourly=200`)).statusCode).toBe(400);
    await expectAccessible(page, 'issues');
    await screenshot(page, 'issues');
    await link.click();
    await page.waitForURL(/\/errors\/issues\/[^/]+$/);
    await page.getByRole('heading', { level: 1, name: /TypeError: coupon SPRING has expired/ }).waitFor();
    const frames = page.getByRole('list', { name: 'Frames, most recent call first' }).first();
    await frames.waitFor();
    // The frame that threw is in-app, first, and open; library frames (node internals, vitest) are folded.
    const first = frames.locator(':scope > li').first();
    expect(await first.textContent()).toContain('applyCoupon');
    expect(await first.textContent()).toContain('in app');
    expect(await first.locator('details').getAttribute('open')).not.toBeNull();
    expect(await frames.getByText(/library frames?$/).count()).toBeGreaterThan(0);
    expect(await page.getByRole('list', { name: 'Breadcrumbs, oldest first' }).textContent()).toContain('added 2 items');
    expect(await page.getByRole('table', { name: 'Tags' }).textContent()).toContain('eu-west');
    await expectAccessible(page, 'issue');
    await screenshot(page, 'issue');

    // A deep link to the issue survives a reload.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /TypeError: coupon SPRING has expired/ }).waitFor();

    await page.getByRole('button', { name: 'Resolve', exact: true }).click();
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    const id = page.url().split('/').pop() as string;
    expect((await s.api('GET', `/api/v1/issues/${id}`)).json().state).toBe('resolved');
  });

  it('shows the project settings with its release, refuses a bad limit beside its field, and rotates the DSN', async () => {
    await page.getByRole('link', { name: /← Issues/ }).click();
    await page.getByRole('link', { name: /^Settings, DSN and releases of checkout$/ }).click();
    await page.getByRole('heading', { level: 1, name: /checkout/ }).waitFor();
    await page.getByRole('table', { name: 'Releases' }).getByRole('row', { name: /shop@3\.0\.0.*1 issue/ }).waitFor();
    await page.getByRole('img', { name: /^Events accepted, filtered, rate-limited and invalid per hour/ }).waitFor();
    await expectAccessible(page, 'project');
    await screenshot(page, 'project');

    const form = page.getByRole('form', { name: 'Ingest settings' });
    await form.getByLabel('Events per minute').fill('99999999');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/events_per_minute must be <= 10000000/);
    await form.getByLabel('Events per minute').fill('120');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('status').waitFor();
    expect((await s.api('GET', `/api/v1/projects/${p.id}`)).json().events_per_minute).toBe(120);

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Rotate the DSN' }).click();
    await page.getByText('The DSN was rotated').waitFor();
    await expect.poll(() => page.getByLabel('DSN', { exact: true }).textContent()).not.toBe(p.dsn);
    const now = (await s.api('GET', `/api/v1/projects/${p.id}`)).json().dsn;
    expect(await page.getByLabel('DSN', { exact: true }).textContent()).toBe(now);
  });
});
