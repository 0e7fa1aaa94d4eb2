/**
 * `npm run panel:screenshots`: renders the panel's main pages, light and dark, into docs/panel/ for docs/panel.md,
 * over a gateway with a fake Claude plan (quota windows with a forecast, a few calls) and a project with one issue
 * whose event has a stack trace with context lines and breadcrumbs. Skipped unless SVC_PANEL_SCREENSHOTS is set, so
 * the test suite never rewrites the committed pictures.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ManualClock } from '../../core/clock.ts';
import { startPlanEnv, type PlanEnv } from '../subscriptions/plan-env.ts';
import { createTeamProject, storeEvent, waitFor, type Project } from '../errors/support/errors-fixtures.ts';
import { ensurePanelBuilt, haveChromium, launchChromium, signIn } from './panel-browser.ts';

const OUT = fileURLToPath(new URL('../../docs/panel/', import.meta.url));
const HOUR = 3_600_000;
const MODEL = 'claude-sonnet-4-5';
const PASSWORD = 'correct horse battery staple';

describe.skipIf(!haveChromium || !process.env.SVC_PANEL_SCREENSHOTS)('panel pictures for the docs', () => {
  // An hour back, so that after the hour between the two quota readings the service's clock is the real time.
  const clock = new ManualClock(Date.now() - HOUR);
  let g: PlanEnv;
  let p: Project;
  let issueId = '';
  let browser: Browser;

  beforeAll(async () => {
    await ensurePanelBuilt();
    g = await startPlanEnv({ clock });
    const u = await g.s.api('POST', '/api/v1/users', { username: 'admin', password: PASSWORD, is_superuser: true });
    await g.s.api('PUT', `/api/v1/teams/${g.teamId}/members/${u.json().id}`, { role: 'owner' });
    await g.s.api('POST', '/api/v1/keys', { name: 'checkout-service', models: ['claude-*'], limits: { requests_per_minute: 60, dollars_per_month: 50 } }, { 'x-svc-team': 'plans' });
    const id = await g.signIn('claude', 'claude-max', { models: [MODEL] });
    const iso = (ms: number) => new Date(ms).toISOString();
    const reset = clock.now() + 3 * HOUR;
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 20, resets_at: iso(reset) }, seven_day: { utilization: 40, resets_at: iso(clock.now() + 21 * HOUR) } } };
    await g.s.api('POST', `/api/v1/accounts/${id}/quota/refresh`);
    clock.advance(HOUR);
    g.fakes.claude.usage = { status: 200, body: { five_hour: { utilization: 55, resets_at: iso(reset) }, seven_day: { utilization: 41, resets_at: iso(clock.now() + 20 * HOUR) } } };
    await g.s.api('POST', `/api/v1/accounts/${id}/quota/refresh`);
    for (let i = 0; i < 6; i++) expect((await g.chat(MODEL, `question ${i}`)).status).toBe(200);

    p = await createTeamProject(g.s, 'plans', { name: 'storefront' });
    await storeEvent(g.s, p, {
      level: 'error', platform: 'javascript', release: 'storefront@4.2.0', environment: 'production',
      tags: { browser: 'Firefox 132', region: 'eu-west' }, user: { id: '4711', ip_address: '203.0.113.9' },
      request: { method: 'POST', url: 'https://shop.example/checkout' },
      breadcrumbs: { values: [
        { timestamp: clock.now() / 1000 - 30, category: 'navigation', message: '/cart → /checkout' },
        { timestamp: clock.now() / 1000 - 5, category: 'fetch', message: 'POST /api/coupons 410' },
      ] },
      exception: { values: [{ type: 'TypeError', value: "Cannot read properties of undefined (reading 'amount')", stacktrace: { frames: [
        { filename: 'node_modules/react-dom/cjs/react-dom.production.js', function: 'callCallback', lineno: 4164, in_app: false },
        { filename: 'node_modules/react-dom/cjs/react-dom.production.js', function: 'invokeGuardedCallback', lineno: 4213, in_app: false },
        { filename: 'src/checkout/summary.tsx', function: 'onSubmit', lineno: 41, in_app: true, pre_context: ['  const submit = async () => {', '    const coupon = await loadCoupon(code);'], context_line: '    total -= coupon.discount.amount;', post_context: ['    await pay(total);', '  };'] },
        { filename: 'src/checkout/coupon.ts', function: 'applyDiscount', lineno: 12, in_app: true, pre_context: ['export function applyDiscount(total, coupon) {'], context_line: '  return total - coupon.discount.amount;', post_context: ['}'] },
      ] } }] },
    });
    issueId = await waitFor(async () => (await g.s.api('GET', `/api/v1/projects/${p.id}/issues`)).json().items[0]?.id as string | undefined);
    await waitFor(async () => (await g.s.db.query('SELECT 1 FROM usage_records')).rows.length >= 6, 20_000);
    await waitFor(async () => (await g.s.db.query('SELECT 1 FROM gateway_keys WHERE last_used_at IS NOT NULL')).rows.length > 0, 20_000);
    // Usage records carry the time they were written; move the service's clock past it so that the pages count them.
    clock.advance(120_000);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await g?.close();
  });

  /** Name, path, and a label or text that appears once the page's data is shown. */
  const PAGES: [string, string, string][] = [
    ['overview', '/ai', 'Top models'],
    ['keys', '/ai/keys', 'checkout-service'],
    ['usage', '/ai/usage?days=7&interval=hour', 'Usage by model'],
    ['accounts', '/ai/accounts', 'five_hour'],
    ['issues', '/errors', "TypeError: Cannot read properties of undefined (reading 'amount')"],
    ['issue', '/errors/issues/:issue', 'Breadcrumbs, oldest first'],
  ];

  for (const scheme of ['light', 'dark'] as const) {
    it(`renders the pages in the ${scheme} theme`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: scheme });
      context.setDefaultTimeout(15_000);
      const page = await context.newPage();
      await signIn(page, g.s.url, '/ai', 'admin', PASSWORD);
      for (const [name, path, ready] of PAGES) {
        await page.goto(`${g.s.url}${path.replace(':issue', issueId)}`);
        await page.getByLabel(ready).or(page.getByText(ready)).first().waitFor();
        await page.screenshot({ path: `${OUT}${name}-${scheme}.png` });
      }
      await context.close();
    });
  }
});
