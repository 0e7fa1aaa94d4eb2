/**
 * A gateway with fake subscription providers for tests: one fake per plan flavor (Claude, ChatGPT, Gemini), a test
 * server listening on 127.0.0.1 whose provider profiles point at the fakes, a team and a gateway key, and helpers to
 * sign accounts in through the real OAuth endpoints and to call the gateway in each client style.
 */
import { expect } from 'vitest';
import type { Clock } from '../../core/clock.ts';
import { startPlanProvider, type FakePlanProvider, type PlanFlavor } from '../fakes/fake-plan-provider.ts';
import { writePlanProfiles } from '../fakes/plan-profiles-file.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

export interface PlanEnv {
  s: TestServer;
  key: string;
  teamId: string;
  fakes: Record<PlanFlavor, FakePlanProvider>;
  signIn(flavor: PlanFlavor, name: string, extra?: Record<string, unknown>): Promise<string>;
  /** A chat-completions call; `session` sets X-Svc-Session. */
  chat(model: string, text?: string, opts?: { stream?: boolean; session?: string }): Promise<Response>;
  messages(model: string, text?: string, opts?: { stream?: boolean }): Promise<Response>;
  responses(model: string, text?: string, opts?: { stream?: boolean }): Promise<Response>;
  generative(model: string, text?: string, opts?: { stream?: boolean }): Promise<Response>;
  state(accountId: string): Promise<string>;
  close(): Promise<void>;
}

const PROVIDER: Record<PlanFlavor, string> = { claude: 'claude', chatgpt: 'chatgpt', gemini: 'gemini-plan' };

export async function startPlanEnv(opts: { clock?: Clock; env?: Record<string, string> } = {}): Promise<PlanEnv> {
  const [claude, chatgpt, gemini] = await Promise.all([startPlanProvider('claude'), startPlanProvider('chatgpt'), startPlanProvider('gemini')]);
  const fakes = { claude, chatgpt, gemini };
  const s = await startTestServer({ listen: true, clock: opts.clock, env: { SVC_PROVIDER_PROFILES: writePlanProfiles([claude, chatgpt, gemini]), ...opts.env } });
  const team = await s.api('POST', '/api/v1/teams', { name: 'plans' });
  expect(team.statusCode, team.body).toBe(201);
  const k = await s.api('POST', '/api/v1/keys', { name: 'plan-tests' }, { 'x-svc-team': 'plans' });
  expect(k.statusCode, k.body).toBe(201);
  const key = k.json().key as string;
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return {
    s,
    key,
    teamId: team.json().id,
    fakes,
    async signIn(flavor, name, extra = {}) {
      const st = await s.api('POST', '/api/v1/accounts/oauth/start', { provider: PROVIDER[flavor], name, ...extra });
      expect(st.statusCode, st.body).toBe(201);
      const issued = fakes[flavor].oauth.authorize(st.json().authorize_url);
      const fin = await s.api('POST', '/api/v1/accounts/oauth/finish', { callback_url: issued.callbackUrl });
      expect(fin.statusCode, fin.body).toBe(201);
      return fin.json().id as string;
    },
    chat: (model, text = 'hi', o = {}) => post('/v1/chat/completions', { model, stream: o.stream === true, messages: [{ role: 'user', content: text }] }, {
      authorization: `Bearer ${key}`, ...(o.session ? { 'x-svc-session': o.session } : {}),
    }),
    messages: (model, text = 'hi', o = {}) => post('/v1/messages', { model, max_tokens: 64, stream: o.stream === true, messages: [{ role: 'user', content: text }] }, {
      'x-api-key': key, 'anthropic-version': '2023-06-01',
    }),
    responses: (model, text = 'hi', o = {}) => post('/v1/responses', { model, stream: o.stream === true, instructions: 'Be brief.', input: text }, {
      authorization: `Bearer ${key}`,
    }),
    generative: (model, text = 'hi', o = {}) => post(`/v1beta/models/${model}:${o.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, { contents: [{ role: 'user', parts: [{ text }] }] }, {
      'x-goog-api-key': key,
    }),
    async state(id) {
      return (await s.db.query<{ state: string }>('SELECT state FROM provider_accounts WHERE id = $1', [id])).rows[0]?.state;
    },
    async close() {
      await s.close();
      await Promise.all([claude.close(), chatgpt.close(), gemini.close()]);
    },
  };
}

/** The text of a JSON answer or of an SSE stream, whatever the client style. */
export async function answerText(res: Response): Promise<string> {
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('event-stream')) {
    const j = JSON.parse(text) as Record<string, unknown>;
    return pick(j);
  }
  let out = '';
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    out += pick(JSON.parse(line.slice(6)) as Record<string, unknown>);
  }
  return out;
}

function pick(j: Record<string, unknown>): string {
  const chat = (j.choices as { message?: { content?: string }; delta?: { content?: string } }[] | undefined)?.[0];
  if (chat) return chat.message?.content ?? chat.delta?.content ?? '';
  if (Array.isArray(j.content)) return (j.content as { text?: string }[]).map((b) => b.text ?? '').join('');
  if (j.type === 'response.output_text.delta') return String(j.delta);
  if (j.object === 'response') {
    const items = j.output as { type: string; content?: { type: string; text?: string }[] }[];
    return items.filter((i) => i.type === 'message').flatMap((i) => i.content ?? []).map((c) => (c.type === 'output_text' ? c.text ?? '' : '')).join('');
  }
  const delta = j.delta as { text?: string } | undefined;
  if (j.type === 'content_block_delta') return delta?.text ?? '';
  const cand = (j.candidates as { content?: { parts?: { text?: string }[] } }[] | undefined)?.[0];
  if (cand) return (cand.content?.parts ?? []).map((p) => p.text ?? '').join('');
  return '';
}
