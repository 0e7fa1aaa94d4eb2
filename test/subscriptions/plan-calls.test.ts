/**
 * Calls through subscription accounts: every client style (chat, messages, generative, responses; JSON and streamed)
 * against each plan (Claude as messages with the OAuth bearer and beta header, ChatGPT through the Codex responses
 * backend, which a responses client reaches in its own style with only the Codex adaptation applied, Gemini through
 * the Code Assist wrapper); an upstream 401 gets one refresh and one retry; a second 401 or a refused refresh token
 * marks the account needs_sign_in (recorded, announced, out of rotation); usage names the account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_PROJECT, type PlanFlavor } from '../fakes/fake-plan-provider.ts';
import { answerText, startPlanEnv, type PlanEnv } from './plan-env.ts';

let g: PlanEnv;
const ids: Record<PlanFlavor, string> = { claude: '', chatgpt: '', gemini: '' };
const MODEL: Record<PlanFlavor, string> = { claude: 'claude-sonnet-4-5', chatgpt: 'gpt-5-codex', gemini: 'gemini-2.5-pro' };

beforeAll(async () => {
  g = await startPlanEnv();
  ids.claude = await g.signIn('claude', 'claude-plan', { models: ['claude-sonnet-4-5', 'claude-opus-4-1'] });
  ids.chatgpt = await g.signIn('chatgpt', 'chatgpt-plan', { models: ['gpt-5-codex'] });
  ids.gemini = await g.signIn('gemini', 'gemini-plan', { models: ['gemini-2.5-pro'] });
});
afterAll(async () => g?.close());

describe.each(['claude', 'chatgpt', 'gemini'] as const)('%s plan', (flavor) => {
  it.each([
    ['chat', false], ['chat', true], ['messages', false], ['messages', true], ['generative', false], ['generative', true], ['responses', false], ['responses', true],
  ] as const)('answers a %s client (stream %s)', async (style, stream) => {
    const res = await g[style](MODEL[flavor], `hello ${style}`, { stream });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await answerText(res)).toBe(`Echo: hello ${style}`);
    const call = g.fakes[flavor].calls.at(-1);
    expect(call?.status).toBe(200);
    expect(call?.headers.authorization).toMatch(/^Bearer at_/);
    expect(call?.headers['x-api-key']).toBeUndefined();
    if (flavor === 'claude') expect(String(call?.headers['anthropic-beta'])).toContain('oauth-2025-04-20');
    if (flavor === 'chatgpt') expect(call?.body).toMatchObject({ stream: true, store: false, instructions: '' });
    if (flavor === 'gemini') expect(call?.body).toMatchObject({ model: MODEL.gemini, project: FAKE_PROJECT, request: { contents: expect.any(Array) } });
  });
});

describe('tokens', () => {
  it('refreshes once and retries once on an upstream 401', async () => {
    const f = g.fakes.claude;
    f.oauth.revokeAccessTokens();
    const before = f.oauth.grants.filter((x) => x === 'refresh_token').length;
    const n = f.calls.length;
    const res = await g.messages(MODEL.claude, 'after revoke');
    expect(res.status).toBe(200);
    expect(f.oauth.grants.filter((x) => x === 'refresh_token').length).toBe(before + 1);
    expect(f.calls.slice(n).map((c) => c.status)).toEqual([401, 200]);
    expect(f.oauth.reusedRefreshTokens).toEqual([]);
  });

  it('marks the account needs_sign_in after a second 401, announces it and keeps it out of rotation', async () => {
    const f = g.fakes.chatgpt;
    // The event goes to the teams whose keys used the account: wait until the (batched) usage rows are written.
    for (let i = 0; i < 200; i++) {
      if ((await g.s.db.query('SELECT 1 FROM usage_records WHERE account_id = $1 LIMIT 1', [ids.chatgpt])).rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    f.script({ status: 401 }, { status: 401 });
    const res = await g.chat(MODEL.chatgpt, 'doomed');
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe('account_needs_sign_in');
    expect(await g.state(ids.chatgpt)).toBe('needs_sign_in');
    const ev = await g.s.db.query<{ team_id: string; payload: { to: string; reason: string; account: { id: string } } }>(
      "SELECT team_id, payload FROM outbox WHERE kind = 'account.state_changed' ORDER BY id DESC LIMIT 1");
    expect(ev.rows[0]).toMatchObject({ team_id: g.teamId, payload: { to: 'needs_sign_in', reason: 'unauthorized', account: { id: ids.chatgpt } } });
    const n = f.calls.length;
    const again = await g.chat(MODEL.chatgpt, 'nobody home');
    expect(again.status).toBe(503);
    expect((await again.json()).error.message).toContain('needs a new sign-in');
    expect(f.calls.length).toBe(n);

    // Signing in again brings it back.
    const st = await g.s.api('POST', '/api/v1/accounts/oauth/start', { provider: 'chatgpt', account_id: ids.chatgpt });
    const fin = await g.s.api('POST', '/api/v1/accounts/oauth/finish', { callback_url: f.oauth.authorize(st.json().authorize_url).callbackUrl });
    expect(fin.statusCode, fin.body).toBe(200);
    expect((await g.chat(MODEL.chatgpt, 'back')).status).toBe(200);
  });

  it('marks the account needs_sign_in when the provider refuses the refresh token (invalid_grant)', async () => {
    const f = g.fakes.gemini;
    f.oauth.revokeRefreshTokens();
    f.oauth.revokeAccessTokens();
    const res = await g.generative(MODEL.gemini, 'no refresh');
    expect(res.status).toBe(503);
    expect(await g.state(ids.gemini)).toBe('needs_sign_in');
    const shown = (await g.s.api('GET', `/api/v1/accounts/${ids.gemini}`)).json();
    expect(shown.state_changes[0]).toMatchObject({ to: 'needs_sign_in', reason: 'refresh_refused' });
  });
});

describe('usage records', () => {
  it('name the subscription account that answered', async () => {
    await g.messages(MODEL.claude, 'metered').then((r) => r.text());
    let rows: { account_id: string; provider: string; upstream_style: string }[] = [];
    for (let i = 0; i < 50 && rows.length === 0; i++) {
      rows = (await g.s.db.query<{ account_id: string; provider: string; upstream_style: string }>(
        "SELECT account_id, provider, upstream_style FROM usage_records WHERE account_id = $1 AND status = 200", [ids.claude])).rows;
      if (rows.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(rows[0]).toMatchObject({ account_id: ids.claude, provider: 'anthropic', upstream_style: 'messages' });
  });
});
