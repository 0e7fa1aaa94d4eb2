/**
 * The AI pages in headless Chromium against a gateway with a fake Claude plan: the account's quota windows render as
 * bars with a forecast marker (a window on course to run out says when); the playground streams an answer in each
 * of the four client styles through the gateway with a short-lived credential of the picked key (no secret pasted), and refuses before sending a model the key
 * may not use; the calls then show in the usage table, the key's last use and the overview; aliases are reordered,
 * a price is set, a subscription account is signed in through the provider's page, and a kept call shows its request
 * and answer. axe-core on each page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../core/clock.ts';
import { startPlanEnv, type PlanEnv } from '../subscriptions/plan-env.ts';
import { waitFor } from '../errors/support/errors-fixtures.ts';
import { ensurePanelBuilt, expectAccessible, haveChromium, launchChromium, screenshot, signIn } from './panel-browser.ts';

const HOUR = 3_600_000;
const MODEL = 'claude-sonnet-4-5';
const PASSWORD = 'correct horse battery staple';

async function pickKey(page: Page, name: string): Promise<void> {
  const select = page.getByLabel('Key', { exact: true });
  await select.selectOption(await select.locator('option', { hasText: `${name} (` }).getAttribute('value'));
}

describe.skipIf(!haveChromium)('the AI pages of the panel', () => {
  const clock = new ManualClock(Date.now());
  let g: PlanEnv;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensurePanelBuilt();
    g = await startPlanEnv({ clock });
    const u = await g.s.api('POST', '/api/v1/users', { username: 'lin', password: PASSWORD, is_superuser: true });
    expect(u.statusCode, u.body).toBe(201);
    expect((await g.s.api('PUT', `/api/v1/teams/${g.teamId}/members/${u.json().id}`, { role: 'owner' })).statusCode).toBe(200);
    const limited = await g.s.api('POST', '/api/v1/keys', { name: 'codex-only', models: ['gpt-5-codex'] }, { 'x-svc-team': 'plans' });
    expect(limited.statusCode, limited.body).toBe(201);

    // Two quota readings an hour apart: five_hour climbs 30 points an hour with 3 hours left, so it runs out;
    // seven_day stays put.
    const id = await g.signIn('claude', 'claude-plan', { models: [MODEL] });
    const iso = (ms: number) => new Date(ms).toISOString();
    const reset = clock.now() + 4 * HOUR;
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 10, resets_at: iso(reset) }, seven_day: { utilization: 30, resets_at: iso(clock.now() + 72 * HOUR) } } };
    expect((await g.s.api('POST', `/api/v1/accounts/${id}/quota/refresh`)).statusCode).toBe(200);
    clock.advance(HOUR);
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 40, resets_at: iso(reset) }, seven_day: { utilization: 30, resets_at: iso(clock.now() + 71 * HOUR) } } };
    expect((await g.s.api('POST', `/api/v1/accounts/${id}/quota/refresh`)).statusCode).toBe(200);

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await signIn(page, g.s.url, '/ai/accounts', 'lin', PASSWORD);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await g?.close();
  });

  it('shows each quota window as a bar with its forecast marker, and when a window runs out', async () => {
    const five = page.getByRole('img', { name: /^five_hour: 40 % used, forecast 130 % at reset$/ });
    await five.waitFor();
    // Above 100 % the marker is pinned to the end of the bar.
    expect(await five.locator('.forecast').evaluate((el) => (el as HTMLElement).style.left)).toBe('calc(100% - 2px)');
    await page.getByRole('img', { name: /^seven_day: 30 % used, / }).waitFor();
    expect(await page.getByText('At this pace it runs out').count()).toBe(1);
    expect(await page.getByRole('heading', { name: /claude-plan/ }).textContent()).toContain('subscription');
    await expectAccessible(page, 'accounts');
    await screenshot(page, 'accounts');
  });

  it('streams an answer in each client style through the gateway and shows the call figures', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playground' }).click();
    await pickKey(page, 'plan-tests');
    await page.getByLabel('Model or alias').fill(MODEL);
    for (const style of ['OpenAI chat completions', 'Anthropic messages', 'Google generative language', 'OpenAI responses']) {
      await page.getByLabel('Client style').selectOption({ label: style });
      expect(await page.getByLabel('Request as sent').textContent()).toContain('••••');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('button', { name: 'Send' }).waitFor();
      const answer = page.getByRole('log', { name: 'Answer' });
      await expect.poll(async () => (await answer.textContent())?.length ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
      const figures = page.getByLabel('Call figures');
      expect(await figures.textContent(), style).toContain(MODEL);
      expect(await figures.textContent(), style).toMatch(/\d+ tokens? \/ \d+ tokens?/);
      expect(await figures.textContent(), style).toMatch(/Latency[\d,]+ ms/);
      expect(await page.getByRole('alert').count(), style).toBe(0);
    }
    await expectAccessible(page, 'playground');
    await screenshot(page, 'playground');
  });

  it('refuses before sending a model the chosen key may not use', async () => {
    await pickKey(page, 'codex-only');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('may not use claude-sonnet-4-5');
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
  });

  it('shows the calls in the usage table, the key\'s last use and the overview', async () => {
    await waitFor(async () => (await g.s.db.query('SELECT 1 FROM usage_records WHERE model = $1', [MODEL])).rows.length >= 4, 20_000);
    await page.goto(`${g.s.url}/ai/usage?days=7&group_by=model`);
    const table = page.getByRole('table', { name: 'Usage by model' });
    await table.waitFor();
    const row = table.getByRole('row', { name: new RegExp(MODEL) });
    expect(await row.textContent()).toContain('4 calls');
    expect(await page.getByRole('img', { name: /^Calls per day, last 7 days$/ }).locator('canvas').count()).toBe(1);
    await expectAccessible(page, 'usage');
    await screenshot(page, 'usage');
    // The keys' last use is written in batches, within seconds; the keys page shows it.
    await waitFor(async () => (await g.s.db.query("SELECT 1 FROM gateway_keys WHERE name = 'plan-tests' AND last_used_at IS NOT NULL")).rows.length === 1, 20_000);
    await page.goto(`${g.s.url}/ai/keys`);
    const key = page.getByRole('table', { name: 'Gateway keys' }).getByRole('row', { name: /plan-tests/ });
    await key.waitFor();
    expect(await key.getByRole('cell').nth(5).textContent()).not.toBe('never');
    // The overview asks for this month by the browser's date; the server reads the month on its clock, an hour
    // ahead of the real one (the quota readings above): from 23:00 UTC the two would name different days.
    await page.clock.setFixedTime(clock.now());
    await page.goto(`${g.s.url}/ai`);
    await page.getByRole('table', { name: 'Top models' }).getByRole('cell', { name: MODEL }).waitFor();
    expect(await page.getByText('1 account, all active.').count()).toBe(1);
    await expectAccessible(page, 'overview');
    await screenshot(page, 'overview');
  });

  it('edits the order of an alias and sets a price override', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Aliases' }).click();
    await page.getByRole('heading', { name: 'No aliases yet' }).waitFor();
    await page.getByRole('button', { name: 'New alias' }).click();
    const form = page.getByRole('form', { name: 'New alias' });
    await form.getByLabel('Alias name').fill('bad*name');
    for (const m of [MODEL, 'gpt-5-codex']) {
      await form.getByLabel('Add a model').fill(m);
      await form.getByRole('button', { name: 'Add', exact: true }).click();
    }
    await form.getByRole('button', { name: 'Create alias' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toContain('cannot be a pattern');
    await form.getByLabel('Alias name').fill('smart');
    await form.getByRole('button', { name: 'Create alias' }).click();
    const smart = page.getByRole('form', { name: 'Alias smart' });
    await smart.getByRole('button', { name: 'Move gpt-5-codex up' }).click();
    await smart.getByRole('button', { name: 'Save order' }).click();
    await smart.getByRole('status').waitFor();
    expect((await g.s.api('GET', '/api/v1/aliases/smart')).json().models).toEqual(['gpt-5-codex', MODEL]);
    await expectAccessible(page, 'aliases');
    await screenshot(page, 'aliases');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Prices' }).click();
    const set = page.getByRole('form', { name: 'Set a price' });
    await set.getByLabel('Model or pattern').fill(MODEL);
    await set.getByLabel('Input ($ per Mtok)').fill('3');
    await set.getByLabel('Output ($ per Mtok)').fill('15');
    await set.getByRole('button', { name: 'Set price' }).click();
    const row = page.getByRole('table', { name: 'Prices' }).getByRole('row', { name: new RegExp(`^${MODEL} `) });
    await expect.poll(() => row.textContent()).toContain('override');
    expect(await row.textContent()).toContain('$15 / Mtok');
    await expectAccessible(page, 'prices');
  });

  it('signs in a subscription account: open the provider page, paste the address it ended on', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click();
    await page.getByRole('button', { name: 'Sign in a subscription account' }).click();
    const form = page.getByRole('form', { name: 'Sign in a subscription account' });
    await form.getByLabel('Plan').selectOption('claude');
    await form.getByLabel('Name').fill('claude-two');
    await form.getByLabel('Models').fill('claude-opus-4-1');
    await form.getByRole('button', { name: 'Start sign-in' }).click();
    const open = form.getByRole('link', { name: "Open the provider's sign-in page" });
    const issued = g.fakes.claude.oauth.authorize(String(await open.getAttribute('href')));
    await form.getByLabel(/Paste the code/).fill(issued.callbackUrl);
    await expectAccessible(page, 'subscription sign-in');
    await form.getByRole('button', { name: 'Finish sign-in' }).click();
    await page.getByRole('heading', { name: /claude-two/ }).waitFor();
    const stored = await g.s.db.query<{ kind: string; state: string }>("SELECT kind, state FROM provider_accounts WHERE name = 'claude-two'");
    expect(stored.rows).toEqual([{ kind: 'subscription', state: 'active' }]);
  });

  it('shows a kept call with its request and answer side by side', async () => {
    const key = (await g.s.api('GET', '/api/v1/keys')).json().items.find((k: { name: string }) => k.name === 'plan-tests');
    expect((await g.s.api('PATCH', `/api/v1/keys/${key.id}`, { log_bodies: '1d' })).statusCode).toBe(200);
    await page.goto(`${g.s.url}/ai/calls`);
    await page.getByRole('heading', { name: 'No kept calls' }).waitFor();
    await waitFor(async () => (await g.chat(MODEL, 'please keep this call')).status === 200);
    await waitFor(async () => (await g.s.db.query('SELECT 1 FROM call_bodies WHERE key_id = $1', [key.id])).rows.length > 0, 20_000);
    await page.reload();
    await page.getByRole('table', { name: 'Kept calls' }).getByRole('link').first().click();
    await page.waitForURL(/\/ai\/calls\/[^/]+$/);
    await expect.poll(() => page.getByLabel('Request body').textContent()).toContain('please keep this call');
    expect(await page.getByLabel('Answer body').textContent()).toContain('Echo');
    await expectAccessible(page, 'call');
    await screenshot(page, 'call');
  });

  it('opens one key\'s usage from the keys page, sets team limits, and lists notifications', async () => {
    await page.goto(`${g.s.url}/ai/keys`);
    await page.getByRole('link', { name: 'Usage of plan-tests' }).click();
    await page.getByText('Only the calls of one key.').waitFor();
    const row = page.getByRole('table', { name: 'Usage by model' }).getByRole('row', { name: new RegExp(MODEL) });
    await expect.poll(() => row.textContent()).toMatch(/\d+ calls/);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Teams' }).click();
    const limits = page.getByRole('form', { name: 'Limits of plans' });
    await limits.getByLabel('Gateway keys').fill('5');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(async () => (await g.s.api('GET', `/api/v1/teams/${g.teamId}/limits`)).json()).toMatchObject({ 'ai.keys': 5 });
    await page.getByText('Limits: 5 gateway keys').first().waitFor();
    await expectAccessible(page, 'teams (superuser)');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Notifications' }).click();
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await page.getByRole('table', { name: 'Notifications' }).or(page.getByRole('heading', { name: 'Nothing to tell yet' })).waitFor();
    await expectAccessible(page, 'notifications');
  });

  it('sets compression for the instance, a team and a key', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Compression' }).click();
    await page.getByRole('table', { name: 'Compression savings' }).or(page.getByRole('heading', { name: 'Nothing compressed yet' })).waitFor();
    const form = page.getByRole('form', { name: 'Instance compression settings' });
    await form.getByLabel('Mode', { exact: true }).selectOption('audit-only');
    await form.getByLabel('Model rules').fill('claude-haiku-*=off');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await g.s.api('GET', '/api/v1/settings/compression')).json()).toMatchObject({ mode: 'audit-only', rules: [{ pattern: 'claude-haiku-*', mode: 'off' }] });
    await page.getByLabel('Mode of team plans').selectOption('off');
    await expect.poll(async () => (await g.s.api('GET', `/api/v1/teams/${g.teamId}/compression`)).json().mode).toBe('off');
    await expectAccessible(page, 'compression');

    await page.goto(`${g.s.url}/ai/keys`);
    await page.getByRole('button', { name: 'Edit plan-tests' }).click();
    const edit = page.getByRole('form', { name: 'Edit the key plan-tests' });
    await edit.getByLabel('Compression').selectOption('audit-only');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    const key = (await g.s.api('GET', '/api/v1/keys')).json().items.find((k: { name: string }) => k.name === 'plan-tests');
    expect(key.compression).toBe('audit-only');
  });
});
