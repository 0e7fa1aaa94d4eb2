/**
 * The playground with separate roles: the panel is served by a control-plane node and the gateway is a proxy node
 * at another address (same database and Redis). The control plane mints a short-lived credential for the key the
 * person picks (no secret pasted) and tells the panel where the gateway is (SVC_GATEWAY_URL); the proxy allows the
 * panel's origin (SVC_PANEL_ORIGIN) with CORS, so the browser streams each client style straight from it. The same
 * without a browser: test/gateway/playground-credential.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Server } from '../../server/build-server.ts';
import { startPlanEnv, type PlanEnv } from '../subscriptions/plan-env.ts';
import { writePlanProfiles } from '../fakes/plan-profiles-file.ts';
import { waitFor } from '../errors/support/errors-fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { startSecondNode } from '../support/second-node.ts';
import { ensurePanelBuilt, expectAccessible, haveChromium, launchChromium, screenshot, signIn } from './panel-browser.ts';

const MODEL = 'claude-sonnet-4-5';
const PASSWORD = 'correct horse battery staple';

describe.skipIf(!haveChromium || !process.env.REDIS_URL)('the playground on split roles', () => {
  let g: PlanEnv;
  let controlPlane: Server;
  let proxy: Server;
  let panelUrl: string;
  let gatewayUrl: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensurePanelBuilt();
    g = await startPlanEnv();
    const u = await g.s.api('POST', '/api/v1/users', { username: 'ada', password: PASSWORD });
    expect(u.statusCode, u.body).toBe(201);
    expect((await g.s.api('PUT', `/api/v1/teams/${g.teamId}/members/${u.json().id}`, { role: 'member' })).statusCode).toBe(200);
    await g.signIn('claude', 'claude-plan', { models: [MODEL] });

    const profiles = writePlanProfiles([g.fakes.claude, g.fakes.chatgpt, g.fakes.gemini]);
    const proxyPort = await freePort();
    gatewayUrl = `http://127.0.0.1:${proxyPort}`;
    controlPlane = await startSecondNode(g.s, 'control-plane', { SVC_GATEWAY_URL: gatewayUrl, SVC_PROVIDER_PROFILES: profiles });
    panelUrl = (await controlPlane.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
    proxy = await startSecondNode(g.s, 'proxy', { SVC_PANEL_ORIGIN: panelUrl, SVC_PROVIDER_PROFILES: profiles });
    await proxy.app.listen({ port: proxyPort, host: '127.0.0.1' });

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await signIn(page, panelUrl, '/ai/playground', 'ada', PASSWORD);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await controlPlane?.close();
    await g?.close();
  });

  it('streams each client style from the proxy node at its own address', async () => {
    expect((await fetch(`${panelUrl}/v1/models`)).status).toBe(404);
    await page.getByLabel('Model or alias').fill(MODEL);
    for (const style of ['OpenAI chat completions', 'Anthropic messages', 'Google generative language', 'OpenAI responses']) {
      await page.getByLabel('Client style').selectOption({ label: style });
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('button', { name: 'Send' }).waitFor();
      const answer = page.getByRole('log', { name: 'Answer' });
      await expect.poll(async () => (await answer.textContent())?.length ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
      const figures = await page.getByLabel('Call figures').textContent();
      expect(figures, style).toContain(MODEL);
      expect(figures, style).toMatch(/\d+ tokens? \/ \d+ tokens?/);
      expect(await page.getByRole('alert').count(), style).toBe(0);
      expect(await page.getByLabel('Request as sent').textContent(), style).toContain(`POST ${gatewayUrl}/v1`);
    }
    // Metered against the picked key, like any call of it.
    await waitFor(async () => (await g.s.db.query("SELECT 1 FROM usage_records u JOIN gateway_keys k ON k.id = u.key_id WHERE k.name = 'plan-tests' AND u.model = $1", [MODEL])).rows.length >= 4, 20_000);
    await expectAccessible(page, 'playground (split roles)');
    await screenshot(page, 'playground-split');
  });

  it('answers a preflight from the panel\'s origin only, and exposes the X-Svc headers', async () => {
    const pre = (origin: string) => fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    const ok = await pre(panelUrl);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(panelUrl);
    expect(ok.headers.get('access-control-allow-headers')).toContain('authorization');
    const other = await pre('https://elsewhere.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const res = await fetch(`${gatewayUrl}/v1/models`, { headers: { origin: panelUrl, authorization: `Bearer ${g.key}` } });
    expect(res.headers.get('access-control-allow-origin')).toBe(panelUrl);
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Svc-Model');
  });
});
