/**
 * A listening gateway for limit tests: a test server, a team `lim`, fake chat and messages upstreams with an
 * account each (gpt-4o-mini and gpt-4o → chat fake; claude-sonnet-4-6 → messages fake), and helpers to make keys
 * and to call the gateway the way SDKs do.
 */
import { expect } from 'vitest';
import type { Clock } from '../../core/clock.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

export interface LimitsEnv {
  s: TestServer;
  teamId: string;
  chat: FakeUpstream;
  messages: FakeUpstream;
  /** Creates a key in team `lim` (body fields of POST /api/v1/keys); returns its id and secret. */
  key(body?: Record<string, unknown>): Promise<{ id: string; secret: string }>;
  chatCall(secret: string, body?: Record<string, unknown>): Promise<Response>;
  messagesCall(secret: string, body?: Record<string, unknown>): Promise<Response>;
  /** Usage rows of a key once at least n are written. */
  usage(keyId: string, n: number): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export const CHAT_BODY = { model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
export const MESSAGES_BODY = { model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };

export async function startLimitsEnv(opts: { clock?: Clock; env?: Record<string, string> } = {}): Promise<LimitsEnv> {
  const [s, chat, messages] = await Promise.all([
    startTestServer({ listen: true, clock: opts.clock, env: opts.env }),
    startFake('chat', ['gpt-4o-mini', 'gpt-4o']),
    startFake('messages', ['claude-sonnet-4-6']),
  ]);
  const team = await s.api('POST', '/api/v1/teams', { name: 'lim' });
  expect(team.statusCode, team.body).toBe(201);
  for (const body of [
    { name: 'openai-fake', provider: 'openai', api_key: 'sk-fake-openai-0123456789abcdef', base_url: `${chat.url}/v1`, models: ['gpt-4o-mini', 'gpt-4o'] },
    { name: 'anthropic-fake', provider: 'anthropic', api_key: 'sk-ant-fake-0123456789abcdef', base_url: messages.url, models: ['claude-sonnet-4-6'] },
  ]) {
    const res = await s.api('POST', '/api/v1/accounts', body);
    expect(res.statusCode, res.body).toBe(201);
  }
  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return {
    s, teamId: team.json().id as string, chat, messages,
    key: async (body = {}) => {
      const res = await s.api('POST', '/api/v1/keys', { name: `k${Math.random().toString(16).slice(2, 8)}`, ...body }, { 'x-svc-team': 'lim' });
      expect(res.statusCode, res.body).toBe(201);
      return { id: res.json().id as string, secret: res.json().key as string };
    },
    chatCall: (secret, body = CHAT_BODY) => post('/v1/chat/completions', { authorization: `Bearer ${secret}` }, body),
    messagesCall: (secret, body = MESSAGES_BODY) => post('/v1/messages', { 'x-api-key': secret, 'anthropic-version': '2023-06-01' }, body),
    usage: async (keyId, n) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const r = await s.db.query<Record<string, unknown>>('SELECT * FROM usage_records WHERE key_id = $1 ORDER BY id', [keyId]);
        if (r.rows.length >= n || Date.now() > deadline) return r.rows;
        await new Promise((res) => setTimeout(res, 25));
      }
    },
    close: async () => {
      await s.close();
      await Promise.all([chat.close(), messages.close()]);
    },
  };
}

/** Polls until check() returns a value other than undefined (or fails after timeoutMs). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
