/**
 * Drives every /api/v1 operation over HTTP against a running server with representative data: users, a team with
 * members, tokens, gateway keys (own and team, with limits and kept bodies), an API-key account and a subscription
 * account signed in through the fake provider, aliases, prices, compression settings, real gateway calls (usage and
 * kept calls), a project with issues, events and releases, a webhook with a delivery, and notifications. Each
 * answer is recorded as `{ op, status, body }`, where `op` is "METHOD /path/{template}" as in the OpenAPI document.
 */
import { expect } from 'vitest';
import { systemClock } from '../../core/clock.ts';
import { startFake } from '../fakes/start-fake.ts';
import { githubClaims, startFakeIssuer, type FakeIssuer } from '../fakes/fake-oidc-issuer.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startPlanEnv, type PlanEnv } from '../subscriptions/plan-env.ts';
import { ADMIN_TOKEN } from '../support/test-server.ts';
import { exceptionEvent, storeEvent, waitFor } from '../errors/support/errors-fixtures.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';
import { PASSWORD } from './identity-fixtures.ts';
import { startFakePeers, type FakePeers } from '../links/support/fake-peer.ts';

export interface Answer {
  op: string;
  status: number;
  body: unknown;
}

/** An answer's JSON, read loosely by the scenario (the test checks it field for field, not its types). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface OperationsEnv {
  plans: PlanEnv;
  chat: FakeUpstream;
  receiver: Receiver;
  /** A GitHub-shaped OIDC issuer for trust rules. */
  issuer: FakeIssuer;
  /** The apps and pages services that projects link to. */
  peers: FakePeers;
  close(): Promise<void>;
}

export async function startOperationsEnv(): Promise<OperationsEnv> {
  const peers = await startFakePeers();
  const [plans, chat, receiver, issuer] = await Promise.all([
    startPlanEnv({ env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true', SVC_ALLOW_PRIVATE_ISSUERS: 'true', ...peers.env } }),
    startFake('chat', ['gpt-4o-mini']),
    startReceiver(),
    startFakeIssuer(systemClock),
  ]);
  peers.trust(plans.s.url);
  return {
    plans, chat, receiver, issuer, peers,
    close: async () => {
      await plans.close();
      await Promise.all([chat.close(), receiver.close(), issuer.close(), peers.close()]);
    },
  };
}

/** Calls every operation at least once with a success expected; returns the answers in order. */
export async function driveEveryOperation(env: OperationsEnv): Promise<Answer[]> {
  const { plans } = env;
  const base = plans.s.url;
  const answers: Answer[] = [];
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  const call = async (op: string, path: string, body?: unknown, headers: Record<string, string> = admin): Promise<{ status: number; json: Json; headers: Headers }> => {
    const method = op.split(' ')[0];
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const json = text === '' ? undefined : JSON.parse(text);
    answers.push({ op, status: res.status, body: json });
    expect(res.status, `${op} ${path}: ${text}`).toBeLessThan(300);
    return { status: res.status, json, headers: res.headers };
  };

  // Discovery.
  await call('GET /api/v1/meta', '/api/v1/meta', undefined, {});
  await call('GET /api/v1/health', '/api/v1/health', undefined, {});

  // Identity: users, sign-in, tokens, teams, members, limits.
  const ann = (await call('POST /api/v1/users', '/api/v1/users', { username: 'ann', email: 'ann@example.com', password: PASSWORD })).json.id as string;
  await call('POST /api/v1/users', '/api/v1/users', { username: 'root2', password: PASSWORD, is_superuser: true });
  await call('GET /api/v1/users', '/api/v1/users?limit=1');
  await call('GET /api/v1/users', '/api/v1/users');
  const login = await call('POST /api/v1/auth/login', '/api/v1/auth/login', { username: 'ann', password: PASSWORD }, {});
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  await call('GET /api/v1/users/me', '/api/v1/users/me', undefined, { cookie, 'sec-fetch-site': 'same-origin' });
  await call('GET /api/v1/users/me', '/api/v1/users/me');
  await call('POST /api/v1/auth/logout', '/api/v1/auth/logout', undefined, { cookie, 'sec-fetch-site': 'same-origin' });
  const annToken = (await call('POST /api/v1/auth/token', '/api/v1/auth/token', { username: 'ann', password: PASSWORD, name: 'ann-cli', scope: 'write', ttl: '1d' }, {})).json.token as string;
  const annAuth = { authorization: `Bearer ${annToken}` };
  await call('POST /api/v1/auth/token', '/api/v1/auth/token', { username: 'ann', password: PASSWORD }, {});
  await fetch(`${base}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ann', password: 'wrong password' }) });
  await call('DELETE /api/v1/auth/sign-in-failures', '/api/v1/auth/sign-in-failures?user=ann');
  const device = async () => {
    const r = await fetch(`${base}/oauth/device_authorization`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=svc-cli&scope=read' });
    return ((await r.json()) as { user_code: string }).user_code;
  };
  const approved = await device();
  await call('GET /api/v1/auth/device', `/api/v1/auth/device?code=${approved}`, undefined, annAuth);
  await call('POST /api/v1/auth/device/approve', '/api/v1/auth/device/approve', { user_code: approved }, annAuth);
  await call('POST /api/v1/auth/device/approve', '/api/v1/auth/device/approve', { user_code: await device(), username: 'ann', password: PASSWORD }, {});
  await call('POST /api/v1/auth/device/deny', '/api/v1/auth/device/deny', { user_code: await device() }, annAuth);
  // Sign-in sessions (svc login on two machines): list them with one session's access token, end the other.
  const signIn = async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const started = await fetch(`${base}/oauth/device_authorization`, { method: 'POST', headers: form, body: 'client_id=svc-cli&scope=write' });
    const { device_code, user_code } = (await started.json()) as { device_code: string; user_code: string };
    await fetch(`${base}/api/v1/auth/device/approve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_code, username: 'ann', password: PASSWORD }) });
    const grant = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code });
    const tokens = await fetch(`${base}/oauth/token`, { method: 'POST', headers: form, body: grant.toString() });
    return { authorization: `Bearer ${((await tokens.json()) as { access_token: string }).access_token}` };
  };
  const laptop = await signIn();
  await signIn();
  const sessions = (await call('GET /api/v1/auth/sessions', '/api/v1/auth/sessions', undefined, laptop)).json.items as { id: string; current: boolean }[];
  await call('DELETE /api/v1/auth/sessions/{id}', `/api/v1/auth/sessions/${sessions.find((x) => !x.current)?.id}`, undefined, laptop);

  const tok = (await call('POST /api/v1/tokens', '/api/v1/tokens', { name: 'ci', scope: 'deploy', ttl: '3d', user: ann })).json.id as string;
  await call('POST /api/v1/tokens', '/api/v1/tokens', { name: 'forever', scope: 'read', ttl: 'never' }, annAuth);
  await call('GET /api/v1/tokens', '/api/v1/tokens');
  await call('GET /api/v1/tokens', `/api/v1/tokens?user=${ann}&limit=1`);
  await call('GET /api/v1/tokens/{id}', `/api/v1/tokens/${tok}`);
  await call('DELETE /api/v1/tokens/{id}', `/api/v1/tokens/${tok}`);

  const team = (await call('POST /api/v1/teams', '/api/v1/teams', { name: 'answers' })).json.id as string;
  await call('GET /api/v1/teams', '/api/v1/teams?limit=1');
  await call('GET /api/v1/teams', '/api/v1/teams', undefined, annAuth);
  await call('GET /api/v1/teams/{id}', `/api/v1/teams/${team}`);
  await call('PUT /api/v1/teams/{id}/members/{user}', `/api/v1/teams/${team}/members/${ann}`, { role: 'admin' });
  await call('PUT /api/v1/teams/{id}/members/{user}', `/api/v1/teams/${team}/members/root2`, { role: 'viewer' });
  await call('GET /api/v1/teams/{id}/members', `/api/v1/teams/${team}/members`);
  await call('DELETE /api/v1/teams/{id}/members/{user}', `/api/v1/teams/${team}/members/root2`);
  await call('GET /api/v1/teams/{id}/limits', `/api/v1/teams/${team}/limits`);
  await call('PUT /api/v1/teams/{id}/limits', `/api/v1/teams/${team}/limits`, { 'ai.keys': 50, 'ai.tokens': null, 'errors.events': 100000 });
  await call('GET /api/v1/teams/{id}/limits', `/api/v1/teams/${team}/limits`);
  await call('GET /api/v1/teams/{id}', `/api/v1/teams/${team}`, undefined, annAuth);

  // AI: accounts, aliases, prices, keys, settings, calls, usage, quota.
  const acc = (await call('POST /api/v1/accounts', '/api/v1/accounts', {
    name: 'chat-fake', provider: 'openai', api_key: 'sk-fake-openai-0123456789abcdef', base_url: `${env.chat.url}/v1`, models: ['gpt-4o-mini'], weight: 2, priority: 1,
  })).json.id as string;
  await call('POST /api/v1/accounts', '/api/v1/accounts', { name: 'spare', provider: 'anthropic', api_key: 'sk-ant-fake-0123456789abcdef', state: 'disabled' });
  await call('GET /api/v1/accounts/{id}', `/api/v1/accounts/${acc}`);
  await call('PATCH /api/v1/accounts/{id}', `/api/v1/accounts/${acc}`, { weight: 3 });
  const st = await call('POST /api/v1/accounts/oauth/start', '/api/v1/accounts/oauth/start', { provider: 'claude', name: 'claude-plan' });
  const issued = plans.fakes.claude.oauth.authorize(st.json.authorize_url);
  const plan = (await call('POST /api/v1/accounts/oauth/finish', '/api/v1/accounts/oauth/finish', { callback_url: issued.callbackUrl })).json.id as string;
  await call('POST /api/v1/accounts/oauth/start', '/api/v1/accounts/oauth/start', { provider: 'chatgpt', name: 'device', flow: 'device' });
  await call('POST /api/v1/accounts/{id}/quota/refresh', `/api/v1/accounts/${plan}/quota/refresh`);
  await call('GET /api/v1/accounts', '/api/v1/accounts');
  await call('GET /api/v1/accounts', '/api/v1/accounts?provider=openai&limit=1');
  await call('GET /api/v1/accounts/{id}', `/api/v1/accounts/${plan}`);

  await call('PUT /api/v1/aliases/{name}', '/api/v1/aliases/fast', { models: ['gpt-4o-mini', 'claude-haiku-4-5'] });
  await call('PUT /api/v1/aliases/{name}', '/api/v1/aliases/spare', { models: ['gpt-4o-mini'] });
  await call('GET /api/v1/aliases/{name}', '/api/v1/aliases/fast');
  await call('GET /api/v1/aliases', '/api/v1/aliases');
  await call('DELETE /api/v1/aliases/{name}', '/api/v1/aliases/spare');
  await call('PUT /api/v1/prices/{model}', '/api/v1/prices/gpt-4o-mini', { input_per_mtok: 0.15, output_per_mtok: 0.6, cache_read_per_mtok: 0.075 });
  await call('PUT /api/v1/prices/{model}', '/api/v1/prices/my-model', { input_per_mtok: 1, output_per_mtok: 2 });
  await call('GET /api/v1/prices', '/api/v1/prices?limit=3');
  await call('GET /api/v1/prices', '/api/v1/prices?model=gpt-4o-mini');
  await call('DELETE /api/v1/prices/{model}', '/api/v1/prices/my-model');

  const teamHeader = { ...admin, 'x-svc-team': team };
  const created = await call('POST /api/v1/keys', '/api/v1/keys', {
    name: 'kept', models: ['gpt-4o-mini', 'fast', 'unknown-model-x'], limits: { requests_per_minute: 100, dollars_per_month: 5 }, log_bodies: '7d', compression: 'audit-only',
  }, teamHeader);
  const keyId = created.json.id as string;
  const secret = created.json.key as string;
  const own = (await call('POST /api/v1/keys', `/api/v1/keys?team=${team}`, { name: 'mine', own: true }, annAuth)).json.id as string;
  await call('GET /api/v1/keys/{id}', `/api/v1/keys/${keyId}`);
  await call('POST /api/v1/keys/{id}/playground-credential', `/api/v1/keys/${keyId}/playground-credential`);
  await call('PATCH /api/v1/keys/{id}', `/api/v1/keys/${own}`, { models: ['nope-model'], disabled: false });
  await call('PATCH /api/v1/keys/{id}', `/api/v1/keys/${own}`, { name: 'mine-2' });

  await call('GET /api/v1/settings/compression', '/api/v1/settings/compression');
  await call('PUT /api/v1/settings/compression', '/api/v1/settings/compression', { mode: 'on', keep_last_turns: 4, rules: [{ pattern: 'gpt-*', mode: 'audit-only', min_tokens: 1000 }] });
  await call('GET /api/v1/teams/{id}/compression', `/api/v1/teams/${team}/compression`);
  await call('PUT /api/v1/teams/{id}/compression', `/api/v1/teams/${team}/compression`, { mode: 'on' });
  await call('GET /api/v1/settings/compression', '/api/v1/settings/compression');

  const gw = (body: unknown) => fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: JSON.stringify(body) });
  expect((await gw({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
  expect((await gw({ model: 'fast', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'again' }] })).status).toBe(200);
  expect((await plans.chat('claude-sonnet-4-6')).status).toBe(200);
  const kept = await waitFor(async () => {
    const r = await fetch(`${base}/api/v1/calls?key=${keyId}`, { headers: annAuth });
    const items = ((await r.json()) as { items: { id: string }[] }).items;
    return items.length >= 2 ? items : undefined;
  });
  await call('GET /api/v1/calls', `/api/v1/calls?key=${keyId}&limit=1`, undefined, annAuth);
  await call('GET /api/v1/calls', `/api/v1/calls?team=${team}`, undefined, annAuth);
  await call('GET /api/v1/calls/{id}', `/api/v1/calls/${kept[0].id}`, undefined, annAuth);
  await call('GET /api/v1/calls/{id}', `/api/v1/calls/${kept[1].id}`, undefined, annAuth);
  await waitFor(async () => (await plans.s.db.query('SELECT 1 FROM usage_records WHERE key_id = $1', [keyId])).rows.length >= 2);
  await call('GET /api/v1/usage', '/api/v1/usage?days=7');
  await call('GET /api/v1/usage', '/api/v1/usage?days=7&group_by=model,key');
  await call('GET /api/v1/usage', `/api/v1/usage?days=2&group_by=account&interval=hour&team=${team}`);
  await call('GET /api/v1/usage', `/api/v1/usage?days=1&key=${keyId}&interval=day`);
  await call('GET /api/v1/compression/report', '/api/v1/compression/report?days=7');
  await call('GET /api/v1/compression/report', '/api/v1/compression/report?days=7&group_by=model');
  await call('GET /api/v1/quota', '/api/v1/quota', undefined, { authorization: `Bearer ${secret}` });
  await call('GET /api/v1/quota', '/api/v1/quota', undefined, { authorization: `Bearer ${plans.key}` });
  await call('GET /api/v1/keys', '/api/v1/keys');
  await call('GET /api/v1/keys', `/api/v1/keys?team=${team}&own=true`, undefined, annAuth);
  await call('GET /api/v1/keys', '/api/v1/keys?limit=1');

  // Errors: projects, keys, issues, events, releases, stats.
  const proj = (await call('POST /api/v1/projects', '/api/v1/projects', { name: 'Web shop', platform: 'javascript', scrub_keys: ['card'], retention_days: 30 }, teamHeader)).json;
  await call('POST /api/v1/projects', `/api/v1/projects?team=${team}`, { name: 'Backend', slug: 'backend', events_per_minute: 100, spike_threshold: 10 });
  await call('GET /api/v1/projects/{id}', `/api/v1/projects/${proj.id}`);
  await call('PATCH /api/v1/projects/{id}', `/api/v1/projects/${proj.id}`, { platform: 'node', events_per_minute: 500 });
  await call('POST /api/v1/projects/{id}/releases', `/api/v1/projects/${proj.id}/releases`, { version: '1.0.0', ref: 'abc123', url: 'https://example.com/r/1' });
  await call('POST /api/v1/projects/{id}/releases', `/api/v1/projects/${proj.id}/releases`, { version: '1.1.0' });
  await call('GET /api/v1/projects/{id}/releases', `/api/v1/projects/${proj.id}/releases`);
  await call('POST /api/v1/webhooks', '/api/v1/webhooks', { url: `${env.receiver.url}/hook`, events: ['issue.new', 'issue.regressed'] }, teamHeader);
  const pk = (await call('GET /api/v1/projects/{id}', `/api/v1/projects/${proj.id}`)).json;
  const ev1 = await storeEvent(plans.s, pk, exceptionEvent('TypeError', 'x is undefined', { fn: 'checkout' }, {
    release: '1.0.0', environment: 'production', user: { id: 'u1', email: 'u1@example.com' }, tags: { browser: 'firefox' },
    breadcrumbs: { values: [{ category: 'ui.click', message: 'button', timestamp: 1_700_000_000 }] }, request: { url: 'https://shop.example.com/cart', method: 'GET' },
  }));
  await storeEvent(plans.s, pk, exceptionEvent('TypeError', 'x is undefined', { fn: 'checkout' }, { release: '1.1.0' }));
  await storeEvent(plans.s, pk, { event_id: crypto.randomUUID().replaceAll('-', ''), level: 'warning', message: 'disk almost full: 93%', logger: 'ops' });
  const issues = await waitFor(async () => {
    const r = await fetch(`${base}/api/v1/projects/${proj.id}/issues`, { headers: admin });
    const items = ((await r.json()) as { items: { id: string; count: number }[] }).items;
    return items.length >= 2 && items.reduce((n, i) => n + i.count, 0) >= 3 ? items : undefined;
  });
  await call('GET /api/v1/projects/{id}/issues', `/api/v1/projects/${proj.id}/issues?limit=1&sort=count`);
  await call('GET /api/v1/projects/{id}/issues', `/api/v1/projects/${proj.id}/issues?state=unresolved&q=TypeError`);
  await call('GET /api/v1/issues/{id}', `/api/v1/issues/${issues[0].id}`);
  await call('GET /api/v1/issues/{id}', `/api/v1/issues/${issues[1].id}?hours=48`);
  await call('PATCH /api/v1/issues/{id}', `/api/v1/issues/${issues[0].id}`, { assignee: 'me' }, annAuth);
  await call('PATCH /api/v1/issues/{id}', `/api/v1/issues/${issues[1].id}`, { state: 'ignored', ignore_until_count: 10 });
  await call('PATCH /api/v1/projects/{id}/issues', `/api/v1/projects/${proj.id}/issues`, { ids: issues.map((i) => i.id), state: 'resolved' });
  await call('GET /api/v1/issues/{id}/events', `/api/v1/issues/${issues[0].id}/events`);
  await call('GET /api/v1/issues/{id}/events', `/api/v1/issues/${issues[0].id}/events?limit=1`);
  await call('GET /api/v1/events/{event_id}', `/api/v1/events/${ev1}?project=${proj.id}`);
  await call('GET /api/v1/events/{event_id}', `/api/v1/events/${ev1}`);
  await call('GET /api/v1/projects/{id}/stats', `/api/v1/projects/${proj.id}/stats`);
  await call('GET /api/v1/projects/{id}/stats', `/api/v1/projects/${proj.id}/stats?interval=hour&group_by=outcome,category`);
  await call('GET /api/v1/projects/{id}/keys', `/api/v1/projects/${proj.id}/keys`);
  await call('POST /api/v1/projects/{id}/keys', `/api/v1/projects/${proj.id}/keys`);
  await call('GET /api/v1/projects/{id}/keys', `/api/v1/projects/${proj.id}/keys`);
  await call('GET /api/v1/projects', '/api/v1/projects');

  // Links to the apps and pages services (fakes; the admin token's access token is the subject `admin`).
  env.peers.apps.add('web');
  env.peers.apps.allow('web', 'admin');
  env.peers.pages.add('shop');
  env.peers.pages.allow('shop', 'admin');
  await call('PUT /api/v1/projects/{id}/links/apps/{target}', `/api/v1/projects/${proj.id}/links/apps/web`, {});
  await call('PUT /api/v1/projects/{id}/links/aliases/{target}', `/api/v1/projects/${proj.id}/links/aliases/shop`, { environment: 'production' });
  await call('GET /api/v1/projects/{id}/links', `/api/v1/projects/${proj.id}/links`);
  await call('DELETE /api/v1/projects/{id}/links/apps/{target}', `/api/v1/projects/${proj.id}/links/apps/web`);
  await call('DELETE /api/v1/projects/{id}/links/aliases/{target}', `/api/v1/projects/${proj.id}/links/aliases/shop`);
  await call('GET /api/v1/projects', `/api/v1/projects?team=${team}&slug=backend`);

  // Webhooks and notifications.
  const hooks = await call('GET /api/v1/webhooks', `/api/v1/webhooks?team=${team}`);
  const hook = hooks.json.items[0].id as string;
  await call('GET /api/v1/webhooks/{id}', `/api/v1/webhooks/${hook}`);
  await call('POST /api/v1/webhooks/{id}/test', `/api/v1/webhooks/${hook}/test`);
  await waitFor(async () => {
    // Every delivery settled, so that the recorded answers are the same from run to run.
    const r = await fetch(`${base}/api/v1/webhooks/${hook}/deliveries`, { headers: admin });
    const items = ((await r.json()) as { items: { state: string }[] }).items;
    return items.length >= 3 && items.every((d) => d.state === 'delivered');
  });
  await call('GET /api/v1/webhooks/{id}/deliveries', `/api/v1/webhooks/${hook}/deliveries`);
  await call('GET /api/v1/webhooks/{id}/deliveries', `/api/v1/webhooks/${hook}/deliveries?limit=1&state=delivered`);
  await call('GET /api/v1/notifications', '/api/v1/notifications');
  await call('GET /api/v1/notifications', `/api/v1/notifications?team=${team}&kind=issue.new&limit=1`);
  await call('GET /api/v1/search', '/api/v1/search?q=a');
  await call('GET /api/v1/search', '/api/v1/search?q=kept&type=key');

  // Trust rules: a CI job exchanges its OIDC token for an access token of the team.
  const rule = (await call('POST /api/v1/trust-rules', '/api/v1/trust-rules', {
    name: 'deploy-main', issuer: env.issuer.url, audience: base, conditions: { repository_owner_id: '9100', ref: 'refs/heads/*' }, scope: 'deploy', ttl: '10m',
  }, { ...annAuth, 'x-svc-team': team })).json.id as string;
  const job = await env.issuer.sign(githubClaims(base));
  const exchanged = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: job, subject_token_type: 'urn:ietf:params:oauth:token-type:jwt', resource: team }).toString(),
  });
  expect(exchanged.status, await exchanged.clone().text()).toBe(200);
  await call('GET /api/v1/trust-rules', `/api/v1/trust-rules?team=${team}`, undefined, annAuth);
  await call('GET /api/v1/trust-rules/{id}', `/api/v1/trust-rules/${rule}`, undefined, annAuth);
  await call('GET /api/v1/trust-exchanges', `/api/v1/trust-exchanges?rule=${rule}`, undefined, annAuth);
  await call('GET /api/v1/trust-exchanges', '/api/v1/trust-exchanges?limit=1');

  // Deletions last.
  await call('DELETE /api/v1/trust-rules/{id}', `/api/v1/trust-rules/${rule}`, undefined, annAuth);
  await call('DELETE /api/v1/webhooks/{id}', `/api/v1/webhooks/${hook}`);
  await call('DELETE /api/v1/keys/{id}', `/api/v1/keys/${own}`);
  await call('DELETE /api/v1/accounts/{id}', `/api/v1/accounts/${acc}`);
  await call('DELETE /api/v1/projects/{id}', `/api/v1/projects/${proj.id}`);
  return answers;
}
