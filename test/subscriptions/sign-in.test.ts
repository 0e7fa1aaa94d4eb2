/**
 * Signing in subscription accounts through POST /api/v1/accounts/oauth/start and /finish against fake providers:
 * the code flow with PKCE (pasted code, code#state, callback URL), the ChatGPT device flow, the Code Assist project
 * lookup, signing an account in again, and every bad input: wrong state, reused or expired code, garbage instead of
 * a callback URL, an expired sign-in, a provider outage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { startPlanProvider, type FakePlanProvider } from '../fakes/fake-plan-provider.ts';
import { writePlanProfiles } from '../fakes/plan-profiles-file.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

describe('subscription sign-in', () => {
  let claude: FakePlanProvider;
  let chatgpt: FakePlanProvider;
  let gemini: FakePlanProvider;
  let srv: TestServer;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    [claude, chatgpt, gemini] = await Promise.all([startPlanProvider('claude'), startPlanProvider('chatgpt'), startPlanProvider('gemini')]);
    srv = await startTestServer({ clock, env: { SVC_PROVIDER_PROFILES: writePlanProfiles([claude, chatgpt, gemini]) } });
  });

  afterAll(async () => {
    await srv?.close();
    await Promise.all([claude?.close(), chatgpt?.close(), gemini?.close()]);
  });

  const start = async (body: Record<string, unknown>) => {
    const r = await srv.api('POST', '/api/v1/accounts/oauth/start', body);
    expect(r.statusCode, r.body).toBe(201);
    return r.json() as { state: string; authorize_url: string; user_code: string; redirect_uri: string };
  };
  const finish = (body: Record<string, unknown>) => srv.api('POST', '/api/v1/accounts/oauth/finish', body);
  const errorCode = (r: { json(): unknown }) => (r.json() as { error: { code: string } }).error.code;

  it('signs in a Claude plan with the pasted code#state and never shows a token', async () => {
    const s = await start({ provider: 'claude', name: 'claude-1', weight: 3 });
    const url = new URL(s.authorize_url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code')).toBe('true');
    const issued = claude.oauth.authorize(s.authorize_url);
    const r = await finish({ state: s.state, code: `${issued.code}#${issued.state}` });
    expect(r.statusCode, r.body).toBe(201);
    const a = r.json();
    expect(a).toMatchObject({ name: 'claude-1', provider: 'anthropic', kind: 'subscription', state: 'active', weight: 3, signed_in_as: 'person@example.com' });
    const shown = await srv.api('GET', `/api/v1/accounts/${a.id}`);
    expect(shown.json()).toMatchObject({ sign_in: { email: 'person@example.com', refresh_failures: 0 }, pauses: [], cooldown: null });
    expect(shown.body).not.toMatch(/at_[0-9a-f]{6}|rt_[0-9a-f]{6}/);
    const stored = await srv.db.query<{ access_sealed: string }>('SELECT access_sealed FROM account_oauth_tokens WHERE account_id = $1', [a.id]);
    expect(stored.rows[0].access_sealed).toMatch(/^v1\./);

    // The same sign-in cannot be finished twice.
    const again = await finish({ state: s.state, code: issued.code });
    expect(again.statusCode).toBe(400);
    expect(errorCode(again)).toBe('oauth_state_unknown');
  });

  it('refuses a callback URL of another sign-in (wrong state)', async () => {
    const a = await start({ provider: 'claude', name: 'claude-a' });
    const b = await start({ provider: 'claude', name: 'claude-b' });
    const issuedA = claude.oauth.authorize(a.authorize_url);
    const r = await finish({ state: b.state, callback_url: issuedA.callbackUrl });
    expect(r.statusCode).toBe(400);
    expect(errorCode(r)).toBe('oauth_state_mismatch');
    // Nothing was consumed: sign-in A still finishes with its own callback URL alone (state from the URL).
    const ok = await finish({ callback_url: issuedA.callbackUrl });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().name).toBe('claude-a');
  });

  it('refuses garbage instead of a code, then still accepts the real one', async () => {
    const s = await start({ provider: 'claude', name: 'claude-garbage' });
    for (const body of [{ code: '<html>Success! You may close this window.</html>' }, { callback_url: 'see the browser' }, { code: 'has spaces in it' }]) {
      const r = await finish({ state: s.state, ...body });
      expect(r.statusCode).toBe(400);
      expect(errorCode(r)).toBe('oauth_callback_invalid');
      expect(r.json().error.message).toMatch(/paste/i);
    }
    const issued = claude.oauth.authorize(s.authorize_url);
    expect((await finish({ state: s.state, code: issued.code })).statusCode).toBe(201);
  });

  it('refuses an expired or reused code with oauth_code_rejected', async () => {
    const s1 = await start({ provider: 'claude', name: 'claude-expired' });
    const issued = claude.oauth.authorize(s1.authorize_url);
    claude.oauth.expireCode(issued.code);
    const r1 = await finish({ state: s1.state, code: issued.code });
    expect(r1.statusCode).toBe(400);
    expect(errorCode(r1)).toBe('oauth_code_rejected');

    const s2 = await start({ provider: 'claude', name: 'claude-reuse-1' });
    const s3 = await start({ provider: 'claude', name: 'claude-reuse-2' });
    const code2 = claude.oauth.authorize(s2.authorize_url).code;
    expect((await finish({ state: s2.state, code: code2 })).statusCode).toBe(201);
    const r3 = await finish({ state: s3.state, code: code2 });
    expect(r3.statusCode).toBe(400);
    expect(errorCode(r3)).toBe('oauth_code_rejected');
    const accounts = await srv.db.query("SELECT 1 FROM provider_accounts WHERE name = 'claude-reuse-2'");
    expect(accounts.rows).toHaveLength(0);
  });

  it('refuses a sign-in finished after 15 minutes, and an unknown state', async () => {
    const s = await start({ provider: 'claude', name: 'claude-late' });
    const issued = claude.oauth.authorize(s.authorize_url);
    clock.advance(16 * 60_000);
    const r = await finish({ state: s.state, code: issued.code });
    expect(r.statusCode).toBe(400);
    expect(errorCode(r)).toBe('oauth_state_expired');
    const u = await finish({ state: 'no-such-state', code: 'abcdefgh' });
    expect(errorCode(u)).toBe('oauth_state_unknown');
  });

  it('keeps the sign-in open through a provider outage, so the same code can be sent again', async () => {
    const s = await start({ provider: 'claude', name: 'claude-outage' });
    const issued = claude.oauth.authorize(s.authorize_url);
    claude.oauth.outages = 1;
    const r = await finish({ state: s.state, code: issued.code });
    expect(r.statusCode).toBe(502);
    expect(errorCode(r)).toBe('oauth_provider_unavailable');
    expect((await finish({ state: s.state, code: issued.code })).statusCode).toBe(201);
  });

  it('signs in a ChatGPT plan with the device flow (202 until the code is entered)', async () => {
    const s = await start({ provider: 'chatgpt', name: 'chatgpt-device', flow: 'device' });
    expect(s.user_code).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}$/);
    const pending = await finish({ state: s.state });
    expect(pending.statusCode).toBe(202);
    expect(pending.json()).toMatchObject({ pending: true });
    chatgpt.oauth.approveDevice(s.user_code);
    const done = await finish({ state: s.state });
    expect(done.statusCode, done.body).toBe(201);
    expect(done.json()).toMatchObject({ provider: 'openai', kind: 'subscription', plan: 'plus' });
    const meta = await srv.db.query<{ meta: Record<string, string> }>('SELECT meta FROM account_oauth_tokens WHERE account_id = $1', [done.json().id]);
    expect(meta.rows[0].meta.chatgpt_account_id).toBe('acct-fake-1');
  });

  it('signs in a ChatGPT plan with the callback URL, and a Gemini plan with its project found', async () => {
    const c = await start({ provider: 'openai', name: 'chatgpt-code' });
    expect(c.redirect_uri).toBe('http://localhost:1455/auth/callback');
    const rc = await finish({ callback_url: chatgpt.oauth.authorize(c.authorize_url).callbackUrl });
    expect(rc.statusCode, rc.body).toBe(201);

    const g = await start({ provider: 'gemini-plan', name: 'gemini-1' });
    expect(new URL(g.authorize_url).searchParams.get('access_type')).toBe('offline');
    const rg = await finish({ state: g.state, code: gemini.oauth.authorize(g.authorize_url).code });
    expect(rg.statusCode, rg.body).toBe(201);
    const shown = await srv.api('GET', `/api/v1/accounts/${rg.json().id}`);
    expect(shown.json().sign_in.project_id).toBe('proj-fake-1');
  });

  it('signs an account that needs a new sign-in in again', async () => {
    const s = await start({ provider: 'claude', name: 'claude-again' });
    const id = (await finish({ state: s.state, code: claude.oauth.authorize(s.authorize_url).code })).json().id as string;
    await srv.db.query("UPDATE provider_accounts SET state = 'needs_sign_in' WHERE id = $1", [id]);
    const again = await start({ provider: 'claude', account_id: id });
    const r = await finish({ state: again.state, code: claude.oauth.authorize(again.authorize_url).code });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ id, state: 'active' });
    const shown = await srv.api('GET', `/api/v1/accounts/${id}`);
    expect(shown.json().state_changes[0]).toMatchObject({ from: 'needs_sign_in', to: 'active', reason: 'signed_in' });
  });

  it('refuses bad starts: unknown provider, no name, taken name, device flow for Claude, API-key account', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ provider: 'mistral', name: 'x' }, 400, 'validation_failed'],
      [{ provider: 'claude' }, 400, 'validation_failed'],
      [{ provider: 'claude', name: 'claude-1' }, 409, 'conflict'],
      [{ provider: 'claude', name: 'd', flow: 'device' }, 400, 'oauth_flow_unsupported'],
    ];
    for (const [body, status, code] of cases) {
      const r = await srv.api('POST', '/api/v1/accounts/oauth/start', body);
      expect(r.statusCode, JSON.stringify(body)).toBe(status);
      expect(errorCode(r)).toBe(code);
    }
    const k = await srv.api('POST', '/api/v1/accounts', { name: 'key-1', provider: 'anthropic', api_key: 'sk-ant-0123456789abcdef' });
    const r = await srv.api('POST', '/api/v1/accounts/oauth/start', { provider: 'claude', account_id: k.json().id });
    expect(errorCode(r)).toBe('validation_failed');
    const sub = await srv.api('POST', '/api/v1/accounts', { name: 'sub', provider: 'anthropic', kind: 'subscription' });
    expect(sub.statusCode).toBe(400);
  });

  it('refuses a Gemini sign-in when the profile has no client secret', async () => {
    const bare = await startTestServer({ env: { SVC_PROVIDER_PROFILES: writePlanProfiles([gemini], { gemini: { client_secret: null } }) } });
    try {
      const r = await bare.api('POST', '/api/v1/accounts/oauth/start', { provider: 'gemini', name: 'g' });
      expect(r.statusCode).toBe(400);
      expect(errorCode(r)).toBe('oauth_not_configured');
      expect(r.json().error.message).toContain('client_secret');
    } finally {
      await bare.close();
    }
  });
});
