/**
 * Per-account outbound proxy: a subscription account's sign-in, token refresh, calls and quota reads all go
 * through its proxy_url (undici ProxyAgent); another account without one goes direct.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConnectProxy } from '../fakes/fake-connect-proxy.ts';
import { startPlanEnv, type PlanEnv } from './plan-env.ts';

let g: PlanEnv;
let proxy: FakeConnectProxy;

beforeAll(async () => {
  [g, proxy] = await Promise.all([startPlanEnv(), new FakeConnectProxy().start()]);
});
afterAll(async () => {
  await g?.close();
  await proxy?.close();
});

describe('outbound proxy per account', () => {
  it('carries the sign-in, the calls, the refresh and the quota read of a proxied account only', async () => {
    const fakeHost = new URL(g.fakes.claude.url).host;
    const id = await g.signIn('claude', 'proxied', { proxy_url: proxy.url, models: ['claude-proxied-1'] });
    expect(proxy.targets.filter((t) => t === fakeHost).length).toBeGreaterThanOrEqual(1);
    const shown = (await g.s.api('GET', `/api/v1/accounts/${id}`)).json();
    expect(shown.proxy_url).toBe(proxy.url);

    const before = proxy.targets.length;
    expect((await g.messages('claude-proxied-1', 'through the proxy')).status).toBe(200);
    g.fakes.claude.oauth.revokeAccessTokens();
    expect((await g.messages('claude-proxied-1', 'refresh through the proxy')).status).toBe(200);
    expect((await g.s.api('POST', `/api/v1/accounts/${id}/quota/refresh`)).json().quota.source).toBe('usage_endpoint');
    // Connections are kept alive, so count at least one new tunnel for the calls and one for the token and usage endpoints.
    expect(proxy.targets.length).toBeGreaterThan(before);

    const direct = await g.signIn('claude', 'direct', { models: ['claude-direct-1'] });
    const n = proxy.targets.length;
    expect((await g.messages('claude-direct-1', 'no proxy')).status).toBe(200);
    expect(direct).toMatch(/^acc_/);
    expect(proxy.targets.length).toBe(n);

    // With the proxy gone, the proxied account cannot reach the provider at all; the direct one still can.
    await proxy.close();
    const calls = g.fakes.claude.calls.length;
    const cut = await g.messages('claude-proxied-1', 'proxy down');
    expect(cut.status).toBe(502);
    expect(g.fakes.claude.calls.length).toBe(calls);
    expect((await g.messages('claude-direct-1', 'still direct')).status).toBe(200);
  });
});
