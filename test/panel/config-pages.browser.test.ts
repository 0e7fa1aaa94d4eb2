/**
 * The prices and aliases pages in headless Chromium with more entries than one page of their lists: each shows its
 * first page, "More prices" / "More aliases" follows the API's next_cursor until the list is complete (then the
 * button is gone), and a change made on the second page lands. axe-core on both pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { ensurePanelBuilt, expectAccessible, haveChromium, launchChromium, screenshot, signIn } from './panel-browser.ts';

const PASSWORD = 'correct horse battery staple';
// The pages read 100 prices and 50 aliases at a time (panel/pages/prices.tsx, aliases.tsx).
const OVERRIDES = 120;
const ALIASES = 60;
const pad = (i: number) => String(i).padStart(3, '0');

describe.skipIf(!haveChromium)('the prices and aliases pages, page by page', () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensurePanelBuilt();
    s = await startTestServer({ listen: true });
    expect((await s.api('POST', '/api/v1/users', { username: 'root-ann', password: PASSWORD, is_superuser: true })).statusCode).toBe(201);
    // Overrides named to sort after every list price, so that the last ones are on a later page.
    for (let i = 0; i < OVERRIDES; i++) {
      const r = await s.api('PUT', `/api/v1/prices/zz-model-${pad(i)}`, { input_per_mtok: 1, output_per_mtok: 2 + i });
      expect(r.statusCode, r.body).toBe(201);
    }
    for (let i = 0; i < ALIASES; i++) {
      const r = await s.api('PUT', `/api/v1/aliases/alias-${pad(i)}`, { models: ['gpt-4o', 'gpt-4.1'] });
      expect(r.statusCode, r.body).toBe(201);
    }
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await signIn(page, s.url, '/ai/prices', 'root-ann', PASSWORD);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('reads the prices past the first page and removes an override found there', async () => {
    const table = page.getByRole('table', { name: 'Prices' });
    const last = table.getByRole('row', { name: new RegExp(`^zz-model-${pad(OVERRIDES - 1)} `) });
    await table.getByRole('row', { name: /^zz-model-000 / }).waitFor();
    const listed = (await s.api('GET', '/api/v1/prices?limit=200')).json();
    expect(listed.next_cursor).toBeNull();
    const all = listed.items.length;
    expect(all).toBeGreaterThan(100);
    expect(await table.getByRole('row').count()).toBe(1 + 100);
    expect(await last.count()).toBe(0);

    await page.getByRole('button', { name: 'More prices' }).click();
    await last.waitFor();
    expect(await table.getByRole('row').count()).toBe(1 + all);
    expect(await page.getByRole('button', { name: 'More prices' }).count()).toBe(0);
    expect(await last.textContent()).toContain(`$${2 + OVERRIDES - 1} / Mtok`);
    await expectAccessible(page, 'prices, second page');
    await screenshot(page, 'prices-paged');

    await table.getByRole('button', { name: `Remove override of zz-model-${pad(OVERRIDES - 1)}` }).click();
    await expect.poll(async () => (await s.api('GET', `/api/v1/prices?model=zz-model-${pad(OVERRIDES - 1)}`)).json().items[0].override).toBeNull();
  });

  it('reads the aliases past the first page and saves one found there', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Aliases' }).click();
    await page.getByRole('form', { name: 'Alias alias-000' }).waitFor();
    const lastName = `alias-${pad(ALIASES - 1)}`;
    expect(await page.getByRole('form', { name: /^Alias alias-/ }).count()).toBe(50);
    expect(await page.getByRole('form', { name: `Alias ${lastName}` }).count()).toBe(0);

    await page.getByRole('button', { name: 'More aliases' }).click();
    const last = page.getByRole('form', { name: `Alias ${lastName}` });
    await last.waitFor();
    expect(await page.getByRole('form', { name: /^Alias alias-/ }).count()).toBe(ALIASES);
    expect(await page.getByRole('button', { name: 'More aliases' }).count()).toBe(0);
    await expectAccessible(page, 'aliases, second page');
    await screenshot(page, 'aliases-paged');

    await last.getByRole('button', { name: 'Move gpt-4.1 up' }).click();
    await last.getByRole('button', { name: 'Save order' }).click();
    await expect.poll(async () => (await s.api('GET', `/api/v1/aliases/${lastName}`)).json().models).toEqual(['gpt-4.1', 'gpt-4o']);
  });
});
