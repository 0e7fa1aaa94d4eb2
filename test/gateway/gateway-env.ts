/**
 * A running gateway for SDK tests: a test server listening on 127.0.0.1, a team and a gateway key made through
 * the API, and one fake upstream per provider style with an account pointing at it (explicit model lists, so
 * each model has one home):
 *   openai    → chat fake        gpt-4o-mini, gpt-4o
 *   anthropic → messages fake    claude-sonnet-4-6, claude-haiku-4-5
 *   gemini    → generative fake  gemini-2.5-flash, gemini-2.5-pro
 */
import { expect } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

export interface GatewayEnv {
  s: TestServer;
  /** The gateway key (sk-svc-…). */
  key: string;
  keyId: string;
  chat: FakeUpstream;
  messages: FakeUpstream;
  generative: FakeUpstream;
  addAccount(body: Record<string, unknown>): Promise<string>;
  /** Usage rows of the key, oldest first, once at least `n` are written (the writer batches). */
  usage(n: number, keyId?: string): Promise<UsageRow[]>;
  close(): Promise<void>;
}

export interface UsageRow {
  model: string;
  served_model: string | null;
  alias: string | null;
  provider: string | null;
  account_id: string | null;
  client_style: string;
  upstream_style: string | null;
  status: number;
  error_code: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number | null;
  usage_source: string;
  latency_ms: number;
  ttfb_ms: number | null;
  cost_usd: number;
  stream: boolean;
}

export async function startGatewayEnv(env: Record<string, string> = {}): Promise<GatewayEnv> {
  const [s, chat, messages, generative] = await Promise.all([
    startTestServer({ listen: true, env }),
    startFake('chat', ['gpt-4o-mini', 'gpt-4o']),
    startFake('messages', ['claude-sonnet-4-6', 'claude-haiku-4-5']),
    startFake('generative', ['gemini-2.5-flash', 'gemini-2.5-pro']),
  ]);
  const team = await s.api('POST', '/api/v1/teams', { name: 'gw' });
  expect(team.statusCode, team.body).toBe(201);
  const k = await s.api('POST', '/api/v1/keys', { name: 'sdk-tests' }, { 'x-svc-team': 'gw' });
  expect(k.statusCode, k.body).toBe(201);
  const addAccount = async (body: Record<string, unknown>) => {
    const res = await s.api('POST', '/api/v1/accounts', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  await addAccount({ name: 'openai-fake', provider: 'openai', api_key: 'sk-fake-openai-0123456789abcdef', base_url: `${chat.url}/v1`, models: ['gpt-4o-mini', 'gpt-4o'] });
  await addAccount({ name: 'anthropic-fake', provider: 'anthropic', api_key: 'sk-ant-fake-0123456789abcdef', base_url: messages.url, models: ['claude-sonnet-4-6', 'claude-haiku-4-5'] });
  await addAccount({ name: 'gemini-fake', provider: 'gemini', api_key: 'AIzaFake0123456789abcdefghijk', base_url: generative.url, models: ['gemini-2.5-flash', 'gemini-2.5-pro'] });
  const keyId = k.json().id as string;
  return {
    s, key: k.json().key as string, keyId, chat, messages, generative, addAccount,
    usage: async (n, id = keyId) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const r = await s.db.query<UsageRow>('SELECT * FROM usage_records WHERE key_id = $1 ORDER BY id', [id]);
        if (r.rows.length >= n || Date.now() > deadline) return r.rows;
        await new Promise((res) => setTimeout(res, 50));
      }
    },
    close: async () => {
      // Every test is done: client connections left open (fetch keeps spare sockets) would hold the close.
      s.app.server.closeAllConnections();
      await s.close();
      await Promise.all([chat.close(), messages.close(), generative.close()]);
    },
  };
}
